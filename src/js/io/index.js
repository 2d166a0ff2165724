// attention-wasm/io: reads the tensor files people have (.npy, .npz, .safetensors) into Tensors that every API call
// accepts (floats as float32; booleans and integers as masks), and writes named tensors as .npz and .safetensors
// files. Needs no WebAssembly module; nothing here names a Node built-in.
export { readNpy } from './npy.js';
export { openNpz, readNpz } from './npz.js';
export { openSafetensors, readSafetensors } from './safetensors.js';
export { writeNpz } from './npz-write.js';
export { writeSafetensors } from './safetensors-write.js';
