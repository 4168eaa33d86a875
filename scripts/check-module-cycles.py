"""Report import circles between the top-level modules of each crate of the workspace.

    python3 scripts/check-module-cycles.py            # exit 1 if a crate has a circle not allowed below
    python3 scripts/check-module-cycles.py --graph    # also print every crate's module graph

A crate's top-level modules are the `mod x;` items of its root file (`src/lib.rs` or
`src/main.rs`, `cfg_if!` blocks included); a module is its file (`x.rs` or `x/mod.rs`) and every
file below `x/`. Module `a` depends on module `b` when code in `a` names `b` by a path:
`crate::b::...` (in a `use` tree, grouped ones included, or inline in code) or
`super::...` reaching the crate root and then `b`; a path through a name the root re-exports
(`crate::Tokenizer`, from `pub use tokenizer::Tokenizer;` in `lib.rs`) depends on the module the
name comes from. The root file itself is the façade and not a node. Comments (so intra-doc
links) and string literals are skipped, and so are `#[cfg(test)]` modules: unit tests may reach
anywhere, as tests of a crate may.

A circle is a strongly connected component of two or more modules; for each, the script prints
one closed path and, for every edge inside it, where it comes from (file:line and the path), so
the edge to cut can be found. ALLOWED lists edges that are known to close a circle and are
accepted for now, each with its reason: the check runs on the graph without them, so any other
circle fails it. An allowed edge that no longer exists, or no longer closes a circle, fails the
check too, so the list only shrinks.
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# crate folder -> {(from module, to module): why the edge is accepted for now}. Every entry is a
# circle issue 16 has not broken yet; cut the edge (move what it names below both modules) and
# delete the entry.
ALLOWED: dict[str, dict[tuple[str, str], str]] = {
    "core": {
        ("scheduler", "job"): "the scheduler's Task hands it an EncodeJob to step, while a job runs on the "
        "Inner that holds the Scheduler it is queued on; a Task trait that hides the job would cut it",
    },
    "crates/yieldtok-engine": {
        ("normalizers", "pre_tokenizers"): "the ByteLevel normalizer reads the pre-tokenizer's BYTE_CHARS table",
        ("added", "load"): "MAX_ID, the id bound, is defined in load",
        ("models", "load"): "MAX_ID, the id bound, is defined in load",
        ("unicode_chunks", "pipeline"): "OffsetMap is defined in pipeline",
        ("char_replace", "pipeline"): "OffsetMap is defined in pipeline",
    },
    "crates/yieldtok-chat": {
        ("strftime", "render_state"): "strftime_now reads the render's clock from render_state",
        ("pyconv", "methods"): "bind_args (Python-style argument binding) is defined in methods",
        ("pyrepr", "methods"): "bind_args (Python-style argument binding) is defined in methods",
        ("pystr", "methods"): "bind_args (Python-style argument binding) is defined in methods",
    },
    "bindings-py": {
        ("chat", "tokenizer"): "surrogate_error (a lone surrogate as ValueError) is defined in tokenizer",
        ("longtext", "tokenizer"): "surrogate_error is defined in tokenizer",
        ("pyjson", "tokenizer"): "surrogate_error is defined in tokenizer",
        ("tokenized", "tokenizer"): "bridge (core future -> asyncio) is defined in tokenizer",
        ("trajectory", "tokenizer"): "bridge (core future -> asyncio) is defined in tokenizer",
        ("tokenized", "trajectory"): "run_detached is defined in trajectory",
    },
}


def members():
    """The workspace members' folders (from the root Cargo.toml)."""
    text = open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8").read()
    block = re.search(r"members\s*=\s*\[(.*?)\]", text, re.S).group(1)
    return re.findall(r'"([^"]+)"', block)


def strip(src: str) -> str:
    """`src` with comments, string and char literals blanked out (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
            continue
        m = re.match(r'b?r(#*)"', src[i:i + 260]) if c in "br" and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")) else None
        if m:
            end = src.find('"' + m.group(1), i + m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
            continue
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", src[i:j + 1]))
            i = j + 1
            continue
        if c == "'":
            # a char literal ('a', '\n', '\u{..}'), not a lifetime ('a)
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'", src[i:i + 12])
            if m:
                out.append(" " * m.end())
                i += m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def blank_test_modules(code: str) -> str:
    """Blank out `#[cfg(test)] mod x { ... }` bodies (and `#[cfg(test)] mod x;` lines)."""
    out = code
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*([{;])", code):
        start = m.start()
        if m.group(1) == ";":
            end = m.end()
        else:
            depth, j = 1, m.end()
            while j < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                j += 1
            end = j
        out = out[:start] + re.sub(r"[^\n]", " ", out[start:end]) + out[end:]
    return out


def use_paths(code: str):
    """(offset, path) of every path a `use` tree spells out (groups expanded), and of every
    inline `crate::`/`super::` path outside `use` items."""
    spans = []
    for m in re.finditer(r"\buse\s+([^;]*);", code):
        spans.append((m.start(), m.end()))
        for path in expand(m.group(1)):
            yield m.start(), path
    inside = lambda k: any(a <= k < b for a, b in spans)  # noqa: E731
    for m in re.finditer(r"(?<![\w$:])((?:crate|super)(?:\s*::\s*(?:super|\w+))+)", code):
        if not inside(m.start()):
            yield m.start(), re.sub(r"\s+", "", m.group(1))


def expand(tree: str):
    """`a::{b, c::{d, e as f}, g::*}` -> a::b, a::c::d, a::c::e, a::g::*."""
    tree = re.sub(r"\s*(::|[{},])\s*", r"\1", tree.strip())
    tree = re.sub(r"^pub(\([^)]*\))?\s+", "", tree)

    def go(prefix, t):
        depth, parts, cur = 0, [], ""
        for ch in t:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            cur += ch
        parts.append(cur)
        for p in parts:
            if not p:
                continue
            k = p.find("{")
            if k >= 0:
                yield from go(prefix + p[:k], p[k + 1:p.rindex("}")])
            else:
                yield prefix + re.sub(r"\s+as\s+\w+$", "", p)

    for p in go("", tree):
        yield p.rstrip(":")


class Crate:
    def __init__(self, folder):
        self.folder = folder
        src = os.path.join(ROOT, folder, "src")
        self.src = src
        root = next(os.path.join(src, f) for f in ("lib.rs", "main.rs") if os.path.exists(os.path.join(src, f)))
        self.root = root
        code = blank_test_modules(strip(open(root, encoding="utf-8").read()))
        self.modules = {}
        for m in re.finditer(r"(?:^|[\s;{}])(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code):
            name = m.group(1)
            for cand in (os.path.join(src, name + ".rs"), os.path.join(src, name, "mod.rs")):
                if os.path.exists(cand):
                    self.modules[name] = cand
                    break
        # names the root brings into scope: `use a::b::C` / `pub use a::{B, C as D}` -> module a
        self.reexports = {}
        for _, path in use_paths(code):
            segs = path.split("::")
            if segs[0] in ("crate", "self"):
                segs = segs[1:]
            if len(segs) >= 2 and segs[0] in self.modules and segs[-1] != "*":
                self.reexports[segs[-1]] = segs[0]
        for m in re.finditer(r"\buse\s+([^;]*?)\s+as\s+(\w+)\s*;", code):
            segs = re.sub(r"\s+", "", m.group(1)).split("::")
            if segs[0] in ("crate", "self"):
                segs = segs[1:]
            if segs and segs[0] in self.modules:
                self.reexports[m.group(2)] = segs[0]

    def files(self, name):
        path = self.modules[name]
        if os.path.basename(path) == "mod.rs":
            base = os.path.dirname(path)
            for d, _, fs in os.walk(base):
                for f in sorted(fs):
                    if f.endswith(".rs"):
                        yield os.path.join(d, f)
        else:
            yield path
            sub = path[:-3]
            if os.path.isdir(sub):
                for d, _, fs in os.walk(sub):
                    for f in sorted(fs):
                        if f.endswith(".rs"):
                            yield os.path.join(d, f)

    def depth_of(self, file):
        """How many `super::` lead from the file's module to the crate root."""
        rel = os.path.relpath(file, self.src)
        parts = rel[:-3].split(os.sep)
        if parts[-1] == "mod":
            parts = parts[:-1]
        return len(parts)

    def target(self, path, depth):
        """The top-level module a path names (None: the module itself, outside, or unknown)."""
        segs = [s for s in path.split("::") if s]
        if not segs:
            return None
        if segs[0] == "crate":
            rest = segs[1:]
        elif segs[0] == "super":
            ups = 0
            while ups < len(segs) and segs[ups] == "super":
                ups += 1
            if ups < depth:
                return None  # stays inside the module
            rest = segs[ups:]
        else:
            return None
        if not rest or rest[0] == "*":
            return None
        head = rest[0]
        if head in self.modules:
            return head
        return self.reexports.get(head)

    def edges(self):
        """{(a, b): [(file, line, path)]} for a != b."""
        edges = {}
        for name in self.modules:
            for file in self.files(name):
                raw = open(file, encoding="utf-8").read()
                code = blank_test_modules(strip(raw))
                base = self.depth_of(file)
                for off, path in use_paths(code):
                    # inline `mod x { ... }` blocks add a level for `super::`
                    depth = base + inline_depth(code, off)
                    t = self.target(path, depth)
                    if t and t != name:
                        line = code.count("\n", 0, off) + 1
                        edges.setdefault((name, t), []).append((os.path.relpath(file, ROOT), line, path))
        return edges


def inline_depth(code, off):
    """How many inline `mod x {` blocks are open at `off`."""
    depth, stack, level = 0, [], 0
    for m in re.finditer(r"\bmod\s+\w+\s*\{|[{}]", code[:off]):
        tok = m.group(0)
        if tok.endswith("{") and tok != "{":
            level += 1
            stack.append(level)
            depth += 1
        elif tok == "{":
            level += 1
        else:
            if stack and stack[-1] == level:
                stack.pop()
                depth -= 1
            level -= 1
    return depth


def sccs(nodes, adj):
    """Tarjan's strongly connected components."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(adj.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def a_cycle(comp, adj):
    """One closed path through the component's first module (breadth-first: a shortest one)."""
    start, members_ = comp[0], set(comp)
    prev, queue, seen = {}, [start], {start}
    while queue:
        v = queue.pop(0)
        for w in sorted(adj.get(v, ())):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members_ and w not in seen:
                seen.add(w)
                prev[w] = v
                queue.append(w)
    return comp


def main():
    show_graph = "--graph" in sys.argv
    failed = False
    for folder in members():
        crate = Crate(folder)
        edges = crate.edges()
        adj = {}
        for a, b in edges:
            adj.setdefault(a, set()).add(b)
        if show_graph:
            print(f"{folder}:")
            for a in sorted(crate.modules):
                print(f"  {a} -> {', '.join(sorted(adj.get(a, ()))) or '-'}")
        allowed = ALLOWED.get(folder, {})
        whole = {m: i for i, comp in enumerate(sccs(crate.modules, adj)) for m in comp}
        for (a, b), why in sorted(allowed.items()):
            if (a, b) not in edges:
                failed = True
                print(f"{folder}: the allowed edge {a} -> {b} is gone: remove it from ALLOWED")
            elif whole[a] != whole[b]:
                failed = True
                print(f"{folder}: the allowed edge {a} -> {b} closes no circle any more: remove it from ALLOWED")
            else:
                print(f"{folder}: allowed for now: {a} -> {b} ({why})")
        rest = {a: {b for b in bs if (a, b) not in allowed} for a, bs in adj.items()}
        for comp in sccs(crate.modules, rest):
            if len(comp) < 2:
                continue
            failed = True
            key = set(comp)
            print(f"{folder}: CIRCLE: {' -> '.join(a_cycle(comp, rest))}")
            for (a, b), sites in sorted(edges.items()):
                if a in key and b in key and (a, b) not in allowed:
                    f, line, path = sites[0]
                    more = f" (+{len(sites) - 1} more)" if len(sites) > 1 else ""
                    print(f"    {a} -> {b}: {f}:{line} {path}{more}")
    if failed:
        print("module circles found (scripts/check-module-cycles.py)")
        return 1
    print("no module circles (besides the allowed edges above) in", ", ".join(members()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
