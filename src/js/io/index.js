// attention-wasm/io: reads the tensor files people have (.npy, .npz, .safetensors) into float32 Tensors that
// every API call accepts. Needs no WebAssembly module; nothing here names a Node built-in.
export { readNpy } from './npy.js';
export { readNpz } from './npz.js';
export { openSafetensors, readSafetensors } from './safetensors.js';
