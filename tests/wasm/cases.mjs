// Texts for the wasm-vs-native checks: edge cases of whitespace, Unicode, special-token
// strings and code, a 100 KB slice of the demo document (many pieces, offsets checked), and
// the whole ~160k-token demo document (ids only). `node tests/wasm/cases.mjs OUT.json` writes
// them for the native reference (bindings-wasm/examples/native_ref.rs).
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateDocument } from "../../bindings-wasm/demo/gen-doc.js";

const SHORT = {
  empty: "",
  space: " ",
  hello: "Hello world",
  leading_spaces: "   leading spaces and trailing   ",
  newlines: "\n\n\nthree newlines first\n\n  then indented\n\t\ttabs\n",
  crlf: "windows\r\nline\r\nendings\r\n",
  many_spaces: "a" + " ".repeat(40) + "b" + "\n".repeat(7) + "   c",
  contractions: "I'll've they're it's WE'VE he'd 'S 'VE o'clock",
  numbers: "1234567890 3.14159 -42 1e10 0x1F 1,000,000 2024-06-01T12:00:00Z",
  combining: "e\u0301 a\u0308 n\u0303 Å Å ﬁ Ⅻ ① ｆｕｌｌｗｉｄｔｈ",
  odd_spaces: "nbsp\u00a0here, zwsp\u200bhere, ideographic\u3000space, line\u2028sep, para\u2029sep, nel\u0085x",
  cjk: "分词器把长文档切成安全的片段。トークナイザーは文書を分割します。토크나이저는 문서를 나눕니다.",
  rtl_indic_thai: "يقوم المُرمِّز بتقسيم النص. टोकनाइज़र दस्तावेज़ को बाँटता है। ตัวตัดคำแบ่งเอกสาร",
  emoji: "🚀🧵✅ 👩🏽‍💻 🇯🇵🇧🇷 ❤️‍🔥 #️⃣ a😀b",
  special_qwen: "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHi<|im_end|><|endoftext|>",
  special_llama: "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>",
  special_misc: "<s> </s> <unk> <bos><start_of_turn>user\nhi<end_of_turn> <｜begin▁of▁sentence｜>x<｜end▁of▁sentence｜> <|endoftext|> <|return|>",
  code: "fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n    println!(\"{:?}\", v);\n}\n\n\tdef f(x):\n\t\treturn x  # comment\n",
  json: '{"role": "user", "content": "hi \\"there\\"\\n", "n": [1, 2.5, null, true]}',
  url: "https://example.com/a/b?c=d&e=f#g mailto:someone@example.org",
  control: "bell\u0007 nul\u0000 del\u007f esc\u001b[0m",
};

export function cases() {
  const out = [];
  for (const [name, text] of Object.entries(SHORT)) {
    out.push({ name, text, add_special_tokens: true });
    out.push({ name: name + "/no_special", text, add_special_tokens: false });
  }
  const doc = generateDocument();
  out.push({ name: "doc_100k", text: doc.slice(0, 100_000), add_special_tokens: true });
  out.push({ name: "doc_full", text: doc, add_special_tokens: true, ids_only: true });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = resolve(process.argv[2] || "target/wasm-ref/cases.json");
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, JSON.stringify(cases()));
  console.log(target);
}
