/** TensorFlow.js on its WebAssembly backend (single-threaded, so training is deterministic). */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';

let ready: Promise<typeof tf> | undefined;

export function tensorflow(): Promise<typeof tf> {
  ready ??= (async () => {
    await tf.setBackend('wasm');
    await tf.ready();
    return tf;
  })();
  return ready;
}

export type Tf = typeof tf;
