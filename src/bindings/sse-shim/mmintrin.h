/* Empty on purpose. Eigen's SSE path includes <mmintrin.h> (MMX), which Emscripten 3.1.6 does not ship;
   clang's own x86 header would hit its #error. Nothing from MMX is used: WASM SIMD128 comes from the
   SSE headers Emscripten does ship. */
