// A deterministic long document for the demo, the browser test and the benchmark: English
// prose, Markdown, code, JSON chat logs, numbers and URLs, and sentences in a dozen scripts.
// About 160k tokens (qwen3) at the default size. Same seed, same text, in browsers and Node.

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were " +
  "her she there been one all we their has would when if so no will more can out about what up its into them than only " +
  "other new some could time these two may then do first any my now such like our over man me even most made after also " +
  "did many before must through back years where much your way well down should because each just those people how too " +
  "little state good very make world still own see men work long get here between both life being under never day same " +
  "another know while last might us great old year off come since against go came right used take three tokenizer model " +
  "sequence vocabulary merge byte encoding decoder attention context window latency throughput benchmark browser thread " +
  "worker event loop frame render paint input keyboard cursor slice budget yield schedule promise await async chunk piece " +
  "boundary offset unicode normalization whitespace regex pretokenizer postprocessor template conversation assistant user " +
  "system function argument result error exception retry timeout request response server client cache memory allocation"
).split(" ");

const NAMES = ["Alice", "Bob", "Carol", "Dmitri", "Eun-ji", "Fatima", "Gustavo", "Hiroshi", "Ines", "Jamal", "Kofi", "Lena"];

const INTL = [
  "Die Tokenisierung langer Dokumente darf die Seite niemals einfrieren, auch nicht für einen einzigen Frame.",
  "La mise en œuvre découpe le texte en morceaux sûrs et rend la main au navigateur entre deux tranches.",
  "El codificador produce exactamente los mismos identificadores que la versión nativa, ficha por ficha.",
  "Токенизатор обрабатывает текст частями и уступает управление циклу событий между ними.",
  "分词器把长文档切成安全的片段，每个片段之间把控制权交还给浏览器，页面始终保持流畅。",
  "トークナイザーは長い文書を安全な区切りで分割し、各スライスの間にイベントループへ制御を戻します。",
  "토크나이저는 긴 문서를 안전한 지점에서 나누고 조각 사이마다 이벤트 루프에 제어를 돌려줍니다.",
  "يقوم المُرمِّز بتقسيم النص الطويل إلى أجزاء آمنة ويعيد التحكم إلى المتصفح بين كل جزء وآخر.",
  "टोकनाइज़र लंबे दस्तावेज़ को सुरक्षित टुकड़ों में बाँटता है और हर टुकड़े के बीच ब्राउज़र को नियंत्रण लौटाता है।",
  "Ο αναλυτής χωρίζει το κείμενο σε ασφαλή κομμάτια και επιστρέφει τον έλεγχο στον βρόχο συμβάντων.",
  "ตัวตัดคำแบ่งเอกสารยาวออกเป็นส่วนที่ปลอดภัยและคืนการควบคุมให้เบราว์เซอร์ระหว่างแต่ละส่วน",
  "Tokenizer chia tài liệu dài thành các đoạn an toàn và trả quyền điều khiển cho trình duyệt giữa các lát cắt.",
  "Emoji too: 🚀 fast, 🧵 sliced, ✅ exact, 👩🏽‍💻 typing while it runs, 🇯🇵🇧🇷 flags, and a café naïve résumé.",
];

const CODE = [
  (id, n) => `function ${id}(items) {\n  const out = [];\n  for (let i = 0; i < items.length; i += ${n}) {\n    out.push(items.slice(i, i + ${n}));\n  }\n  return out;\n}\n`,
  (id, n) => `def ${id}(text: str, size: int = ${n}) -> list[str]:\n    """Split text into pieces of at most size characters."""\n    return [text[i : i + size] for i in range(0, len(text), size)]\n`,
  (id, n) => `pub fn ${id}(ids: &[u32]) -> u64 {\n    ids.iter().fold(${n}u64, |h, &id| h.wrapping_mul(31).wrapping_add(id as u64))\n}\n`,
  (id, n) => `SELECT user_id, COUNT(*) AS n\nFROM events\nWHERE kind = '${id}' AND latency_ms > ${n}\nGROUP BY user_id\nORDER BY n DESC;\n`,
];

export function generateDocument({ seed = 20240601, targetChars = 740_000 } = {}) {
  const rnd = mulberry32(seed);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const int = (n) => Math.floor(rnd() * n);
  const parts = [];
  let length = 0;
  const push = (s) => {
    parts.push(s);
    length += s.length;
  };
  const sentence = () => {
    const n = 6 + int(18);
    const words = [];
    for (let i = 0; i < n; i++) words.push(pick(WORDS));
    if (rnd() < 0.3) words.splice(int(n), 0, pick(NAMES));
    if (rnd() < 0.2) words.splice(int(n), 0, String(int(100000)));
    let s = words.join(" ");
    s = s[0].toUpperCase() + s.slice(1);
    if (rnd() < 0.25) {
      const k = 1 + int(Math.max(1, words.length - 2));
      s = s.split(" ").map((w, i) => (i === k ? w + "," : w)).join(" ");
    }
    return s + pick([".", ".", ".", "?", "!", ";", ":"]);
  };
  let section = 0;
  while (length < targetChars) {
    section++;
    push(`## ${section}. ${pick(WORDS)} ${pick(WORDS)} and the ${pick(WORDS)}\n\n`);
    const paragraphs = 2 + int(4);
    for (let p = 0; p < paragraphs; p++) {
      const k = 3 + int(6);
      const ss = [];
      for (let i = 0; i < k; i++) ss.push(sentence());
      push(ss.join(" ") + "\n\n");
    }
    const r = rnd();
    if (r < 0.25) {
      const id = pick(WORDS) + "_" + pick(WORDS);
      push("```\n" + pick(CODE)(id, 2 + int(60)) + "```\n\n");
    } else if (r < 0.45) {
      for (let i = 0; i < 3 + int(4); i++) push(`- ${sentence()}\n`);
      push("\n");
    } else if (r < 0.6) {
      for (let i = 0; i < 2 + int(3); i++) {
        push(JSON.stringify({ role: pick(["user", "assistant", "tool"]), content: sentence(), ts: 1700000000 + int(1e7) }) + "\n");
      }
      push("\n");
    } else if (r < 0.8) {
      push(pick(INTL) + " " + pick(INTL) + "\n\n");
    } else {
      push(`See https://example.com/${pick(WORDS)}/${int(10000)}?q=${pick(WORDS)}&n=${int(100)} — ${int(1000)}.${int(100)} ms, ${int(100)}% done, v${int(10)}.${int(10)}.${int(100)}\n\n`);
    }
  }
  return parts.join("");
}

/** FNV-1a over the ids (as u32), hex: the checksum the tests compare with native. */
export function idsChecksum(ids) {
  let h = 0x811c9dc5;
  for (let i = 0; i < ids.length; i++) {
    let v = ids[i];
    for (let b = 0; b < 4; b++) {
      h ^= v & 0xff;
      h = Math.imul(h, 0x01000193) >>> 0;
      v >>>= 8;
    }
  }
  return h.toString(16).padStart(8, "0");
}
