// Cases of truncation, padding, pairs and added tokens for the wasm binding, checked against
// the `tokenizers` crate itself (bindings-wasm/examples/settings_ref.rs): each names a fixture,
// optional added tokens, truncation and padding (absent: as tokenizer.json says; null: off;
// `tokenizers`' snake_case fields), and inputs (texts and [text, pair] pairs).
// `node tests/wasm/settings_cases.mjs OUT.json` writes them for the reference.
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateDocument } from "../../bindings-wasm/demo/gen-doc.js";

const doc = generateDocument({ targetChars: 40_000 });

const TEXTS = [
  "What is the capital of France?",
  "Paris is the capital and most populous city of France, on the Seine.",
  "",
  "   odd  \t whitespace \n\n and\u00a0nbsp\u3000ideographic ",
  "分词器把长文档切成安全的片段。トークナイザー 토크나이저 🚀👩🏽‍💻🇯🇵 a😀b",
  "fn main() {\n    println!(\"{:?}\", (0..10).map(|x| x * x).collect::<Vec<u32>>());\n}\n",
  "<|im_start|>user\nhello<|im_end|> <s> </s> [CLS] [SEP] literal specials",
  doc.slice(0, 6_000),
  doc,
];

const PAIRS = [
  [TEXTS[0], TEXTS[1]],
  [TEXTS[4], TEXTS[3]],
  ["", TEXTS[0]],
  [TEXTS[5], ""],
  [TEXTS[7], TEXTS[1]],
  [TEXTS[1], doc.slice(0, 3_000)],
];

const ALL = [...TEXTS, ...PAIRS];
const SHORT = [...TEXTS.slice(0, 7), ...PAIRS.slice(0, 4)];

const ADDED = [
  { content: "<extra_tool>", special: true },
  { content: "yieldtok", special: false, single_word: true },
  { content: " strip me", special: false, lstrip: true, rstrip: true },
  { content: "MiXeD", special: false, normalized: false },
];

export function settingsCases() {
  const out = [];
  const add = (fixture, name, c) => out.push({ fixture, name: `${fixture}/${name}`, inputs: ALL, ...c });
  for (const f of ["minilm", "qwen3", "llama2", "gemma3"]) {
    add(f, "as_loaded", {});
    add(f, "off", { truncation: null, padding: null });
    add(f, "right_64", { truncation: { max_length: 64 }, padding: null });
    add(f, "right_40_stride_8_pad_multiple_16", {
      truncation: { max_length: 40, stride: 8 },
      padding: { pad_to_multiple_of: 16, pad_id: 3, pad_token: "<pad>" },
    });
    add(f, "left_48_pad_left_longest", {
      truncation: { max_length: 48, direction: "left" },
      padding: { direction: "left", pad_id: 1, pad_type_id: 2 },
    });
    add(f, "only_first_30", { truncation: { max_length: 30, strategy: "only_first" }, padding: null, inputs: PAIRS });
    add(f, "only_second_30", { truncation: { max_length: 30, strategy: "only_second" }, padding: null, inputs: PAIRS });
    add(f, "pad_fixed_96_no_special", {
      truncation: { max_length: 96 },
      padding: { length: 96 },
      add_special_tokens: false,
    });
    add(f, "added_tokens", { added: ADDED, truncation: null, padding: null, inputs: [...SHORT, "yieldtok<extra_tool>MiXeD mixed strip me yieldtoks", ["a yieldtok b", "<extra_tool> strip me"]] });
    add(f, "stride_too_long", { truncation: { max_length: 8, stride: 8 }, inputs: SHORT });
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = resolve(process.argv[2] || "target/wasm-ref/settings_cases.json");
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, JSON.stringify(settingsCases()));
  console.log(target);
}
