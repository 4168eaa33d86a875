// Compiled with `tsc -p bindings-wasm/types-test` against the generated .d.ts: the public API
// must type-check as documented. Never run.
import init, { AddedToken, Tokenizer, EncodeTask, version } from "../pkg-web/yieldtok_wasm.js";
import type { ChatResult, Encoding, EncodeOptions, PaddingOptions, TruncationOptions, WorkerTokenizer, TaskOptions, YieldMode } from "../pkg-web/yieldtok_wasm.js";
import * as node from "../pkg-node/yieldtok_wasm.js";

async function main(json: string, bytes: Uint8Array): Promise<void> {
  await init();
  const v: string = version();
  const tok: Tokenizer = await Tokenizer.fromJSON(json, { name: "qwen3", config: "{}" });
  const tok2: Tokenizer = await Tokenizer.fromJSON(bytes);
  const tok3: Tokenizer = await Tokenizer.fromURL("/fixtures/qwen3/tokenizer.json");
  const ac = new AbortController();
  const mode: YieldMode = "message";
  const opts: EncodeOptions = { addSpecialTokens: false, sliceMs: 4, signal: ac.signal, onProgress: (done: number, total: number) => void (done / total), yield: mode };
  const ids: Uint32Array = await tok.encode("hello", opts);
  const enc: Encoding = await tok.encodeWithOffsets("hello");
  const starts: number = enc.offsets[0] + enc.byteOffsets[1] + enc.ids[0];
  const n: number = await tok.count("hello", { sliceMs: 2 });
  const batch: Uint32Array[] = await tok.encodeBatch(["a", "b"], { addSpecialTokens: true });
  const text: string = tok.decode(ids, { skipSpecialTokens: true }) + tok.decode([1, 2, 3]);
  const sync: Uint32Array = tok.encodeSync("hello", { addSpecialTokens: false });
  const syncEnc: Encoding = tok.encodeWithOffsetsSync("hello");
  const syncN: number = tok.countSync("hello");
  const trunc: TruncationOptions = { stride: 2, strategy: "OnlyFirst", direction: "left" };
  tok.setTruncation(512, trunc);
  tok.setTruncation(512);
  const pad: PaddingOptions = { maxLength: 128, direction: 0, padToMultipleOf: 8, padId: 0, padTypeId: 0, padToken: "<pad>" };
  tok.setPadding(pad);
  tok.setPadding();
  tok.disableTruncation();
  tok.disablePadding();
  const pairEnc: Encoding = await tok.encodeWithOffsets("question", "passage", { addSpecialTokens: true });
  const pairIds: Uint32Array = tok.encodeSync("question", "passage");
  const pairFields: number = pairEnc.typeIds[0] + pairEnc.attentionMask[0] + pairEnc.specialTokensMask[0] + pairEnc.wordIds[0] + pairEnc.sequenceIds[0] + pairEnc.nSequences + pairIds[0];
  const mixed: Uint32Array[] = await tok.encodeBatch(["a", ["b", "c"]]);
  const vocab: Record<string, number> = tok.getVocab(false);
  const added: number = tok.addTokens(["x", new AddedToken("y", false, { singleWord: true, leftStrip: false, rightStrip: false, normalized: true })]) + tok.addSpecialTokens(["<z>"]);
  const at = new AddedToken("<t>", true);
  const atFlags: boolean = at.special && at.singleWord && at.leftStrip && at.rightStrip && at.normalized && at.content.length > 0;
  const id: number | undefined = tok.tokenToId("<|im_start|>");
  const tokStr: string | undefined = tok.idToToken(1);
  const chat: ChatResult = tok.applyChatTemplate([{ role: "user", content: "hi" }], { addGenerationPrompt: true, continueFinalMessage: false, kwargs: { enable_thinking: false }, tokenize: true });
  const chatIds: Uint32Array | undefined = chat.ids;
  const wchat: ChatResult = await (await Tokenizer.inWorker(json)).applyChatTemplate([{ role: "user", content: "hi", name: "x" }]);
  const info: string = `${tok.vocabSize} ${tok.chunking} ${tok.name ?? ""}`;
  const topts: TaskOptions = { output: "count", pieceBytes: 2048 };
  const task: EncodeTask = tok.createTask("hello", topts);
  while (!task.step(4)) void (task.doneBytes / task.totalBytes);
  const result: Uint32Array | Encoding | number = task.finish();
  task.cancel();
  task.free();
  const w: WorkerTokenizer = await Tokenizer.inWorker(new URL("https://example.invalid/tokenizer.json"), { sliceMs: 4 });
  const wids: Uint32Array = await w.encode("hello", { signal: ac.signal, onProgress: () => {} });
  const wenc: Encoding = await w.encodeWithOffsets("hello");
  const wn: number = await w.count("hello");
  const wb: Uint32Array[] = await w.encodeBatch(["a"]);
  const wt: string = await w.decode(wids);
  await w.setTruncation(512, { direction: "right" });
  await w.setPadding({ maxLength: 8 });
  await w.disableTruncation();
  await w.disablePadding();
  const wpair: Encoding = await w.encodeWithOffsets("q", "p", { sliceMs: 2 });
  const wpairIds: Uint32Array = await w.encode("q", "p");
  const wmixed: Uint32Array[] = await w.encodeBatch(["a", ["b", "c"]]);
  const wvocab: Record<string, number> = await w.getVocab(true);
  const wadded: number = (await w.addTokens(["x", new AddedToken("y")])) + (await w.addSpecialTokens(["<z>"]));
  const pending: number = w.pending + w.vocabSize;
  const wcompact: Uint8Array = await w.toCompact();
  const ctok: Tokenizer = await Tokenizer.fromCompact(wcompact, { name: "qwen3" });
  const ctok2: Tokenizer = await Tokenizer.fromCompact(tok.toCompact().buffer as ArrayBuffer);
  const isCompact: boolean = ctok.compact && !tok.compact;
  const cids: Uint32Array = await ctok.encode("hello", { sliceMs: 4 });
  ctok.free();
  ctok2.free();
  w.terminate();
  const ntok: node.Tokenizer = await node.Tokenizer.fromJSON(json);
  const nids: Uint32Array = await ntok.encode("x");
  tok.free();
  tok2.free();
  tok3.free();
  void [isCompact, cids, chat, chatIds, wchat, v, starts, n, batch, text, sync, syncEnc, syncN, id, tokStr, info, result, wenc, wn, wb, wt, pending, nids];
}

// @ts-expect-error text must be a string
void ((t: Tokenizer) => t.encode(42));
// @ts-expect-error unknown output kind
void ((t: Tokenizer) => t.createTask("x", { output: "tokens" }));
// @ts-expect-error sliceMs is a number
void ((t: Tokenizer) => t.encode("x", { sliceMs: "4" }));
void main;
