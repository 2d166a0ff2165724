// The ids of the lessons on the shipped model's instruments (instrumentLessons.js), as a link names them
// (?lesson=patching): here alone, so that the page's link table knows them without loading the lessons.
export const INSTRUMENT_LESSON_IDS = Object.freeze(['head-writes', 'logit-lens', 'patching']);
