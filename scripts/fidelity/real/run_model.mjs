// Runs the rewritten recognizer on one image with onnxruntime-node and
// writes every attention head's keys and queries as float32 .npy:
//
//   node run_model.mjs MODEL.onnx QK.json INPUT.npy CHARSET.txt OUT_DIR TOKENS
//
// QK.json comes from expose_qk.py, INPUT.npy ([1, 3, 48, W] float32) from
// render_text.py. For layer L and head H, OUT_DIR/layerL/headH/keys.npy and
// queries.npy hold rows 0..TOKENS-1 of that head's k and q ([N, D]; q
// unscaled, so q.k / sqrt(D) are the model's logits). Also prints the
// recognized text (greedy CTC over CHARSET.txt), a check that the model
// reads the image. ORT_NODE_MODULES names the node_modules folder that holds
// onnxruntime-node (make-dump.sh's scratch npm folder).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// onnxruntime-node lives in the scratch npm folder, not next to this file.
const [modelPath, listingPath, inputPath, charsetPath, outDir, tokensArg] =
  process.argv.slice(2);
if (tokensArg === undefined) {
  console.error('usage: node run_model.mjs MODEL.onnx QK.json INPUT.npy ' +
                'CHARSET.txt OUT_DIR TOKENS (ORT_NODE_MODULES: node_modules with onnxruntime-node)');
  process.exit(2);
}
if (!process.env.ORT_NODE_MODULES) {
  console.error('run_model.mjs: error: set ORT_NODE_MODULES to the node_modules holding onnxruntime-node');
  process.exit(2);
}
const require = createRequire(path.join(process.env.ORT_NODE_MODULES, 'x.js'));
const ort = require('onnxruntime-node');

function readNpy(file) {
  const bytes = fs.readFileSync(file);
  const headerLength = bytes.readUInt16LE(8);
  const header = bytes.toString('latin1', 10, 10 + headerLength);
  if (!header.includes("'descr': '<f4'") || header.includes("'fortran_order': True"))
    throw new Error(`${file}: expected C-order float32, got ${header}`);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',')
    .filter((s) => s.trim()).map(Number);
  const data = new Float32Array(bytes.buffer.slice(
    bytes.byteOffset + 10 + headerLength, bytes.byteOffset + bytes.length));
  return { shape, data };
}

function writeNpy(file, data, shape) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  // Magic, version 1.0, header length; the header ends in \n at a multiple of 64.
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([
    prefix, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

const tokens = Number(tokensArg);
const listing = JSON.parse(fs.readFileSync(listingPath, 'utf8'));
const input = readNpy(inputPath);
const session = await ort.InferenceSession.create(modelPath, {
  graphOptimizationLevel: 'disabled',  // keep every exposed tensor as is
});
const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', input.data, input.shape) };
const results = await session.run(feeds);

// Greedy CTC: blank 0, then the charset's lines, then a space.
const charset = ['', ...fs.readFileSync(charsetPath, 'utf8').split('\n')
  .filter((line, i, all) => i < all.length - 1 || line !== ''), ' '];
const probs = results[session.outputNames[0]];
const [, steps, classes] = probs.dims;
let text = '', previous = 0;
for (let t = 0; t < steps; ++t) {
  let best = 0;
  for (let c = 1; c < classes; ++c)
    if (probs.data[t * classes + c] > probs.data[t * classes + best]) best = c;
  if (best !== 0 && best !== previous) text += charset[best] ?? '?';
  previous = best;
}
fs.writeFileSync(path.join(outDir, 'recognized.txt'), text + '\n');

const layers = [];
listing.layers.forEach((layer, l) => {
  const q = results[layer.q], k = results[layer.k];
  const [batch, heads, n, dim] = k.dims;
  if (batch !== 1 || q.dims.join() !== k.dims.join())
    throw new Error(`layer ${l}: q ${q.dims} and k ${k.dims} are not [1, H, N, D] alike`);
  if (n < tokens)
    throw new Error(`layer ${l}: ${n} tokens, fewer than the ${tokens} asked for`);
  for (let h = 0; h < heads; ++h) {
    const dir = path.join(outDir, `layer${l}`, `head${h}`);
    fs.mkdirSync(dir, { recursive: true });
    const rows = (t) => t.data.slice(h * n * dim, (h * n + tokens) * dim);
    writeNpy(path.join(dir, 'keys.npy'), rows(k), [tokens, dim]);
    writeNpy(path.join(dir, 'queries.npy'), rows(q), [tokens, dim]);
  }
  layers.push({ q: layer.q, k: layer.k, q_scale: layer.q_scale, heads, dim,
                sequence: n });
});
fs.writeFileSync(path.join(outDir, 'layers.json'), JSON.stringify(
  { onnxruntime: ort.env.versions, input_shape: input.shape, tokens, layers },
  null, 1) + '\n');
console.log(`${layers.length} layers x ${layers[0].heads} heads, D = ${layers[0].dim}, ` +
            `sequence ${layers[0].sequence}, kept ${tokens} tokens`);
console.log(`recognized (first 120 characters): ${text.slice(0, 120)}`);
