// In the repository, the app's tokenizer.json writer is the model tests' own; the tests copy that file here into
// each app they build, since an app is built outside this folder.
export { byteLevelTokenizer } from '../../js/model/tokenizers.js';
