#!/usr/bin/env python3
"""paths-check.py - every repository path that a comment or a doc names exists.

  scripts/paths-check.py [-C TOP]

Reads the comments of *.c *.h *.js *.mjs (/* */ and //), of *.sh *.bash *.py *.mk,
Makefile, .clang-format and extension-less bash scripts (#), and the whole text of *.md and
the man pages docs/man/*.[0-9], in every file git lists (tracked, or untracked and not
ignored; `find` outside git) except third_party/ (upstream's text) and the fuzz corpora.
In that text it looks for three kinds of names:

  DIR/...    a token that starts with a top-level directory of the tree (analysis/,
             tests/, .ci/, ...) and is not part of a longer path (/usr/lib/..., $(BUILD)/...,
             $top/tests/..., a URL): it must name a file or directory of the tree.  A glob
             (tests/e2e/*.sh, tests/fixtures/sym_*.{c,cc}) must match at least one; an
             upper-case placeholder (tests/component/expected/NAME) matches anything; a
             build product names its source (tests/tools/mkexp and analysis/metrics.o from
             tests/tools/mkexp.c and analysis/metrics.c, X.pb-c.h from X.proto).
  NAME.EXT   a bare file name with an extension of the tree's text files (.c .h .sh .mk
             .md .txt .py .js .mjs; README.md, record.h, tests.mk): some file of the tree must
             have that name.
  #ANCHOR    in a markdown link, [text](PAGE.md#anchor) or [text](#anchor): the page must
             have a heading of that anchor (GitHub's: "## Heap tracing (`-H on`)" is
             #heap-tracing--h-on).

scripts/paths-allow.txt lists the true exceptions, one NAME a line with the reason in a
comment above it: names that comments and docs may use although the tree has no such file
(an example of the user's own files, a file of another project).  An entry that no
comment or doc needs any longer is itself reported, so the list cannot outlive its reason.

Prints "FILE:LINE: names PATH, which does not exist" (or "links to PAGE#ANCHOR, which has
no such heading") for each miss and a summary line
"paths-check: N names in M files checked, K missing".  Exit status: 0 all found, 1 some
missing, 2 usage or setup error.  Run by tests/e2e/plumbing_paths.sh.
"""

import os
import re
import subprocess
import sys

TEXT_EXT = ("c", "h", "sh", "mk", "md", "txt", "py", "js", "mjs")
SKIP_DIRS = ("third_party/", "tests/fuzz/corpus/", ".git/")
ALLOW = "scripts/paths-allow.txt"


def die(msg):
    sys.stderr.write("paths-check: error: %s\n" % msg)
    sys.exit(2)


def git(top, *args):
    return subprocess.run(["git", "-C", top] + list(args), check=True, capture_output=True,
                          text=True).stdout


def list_files(top):
    """Every file of the tree, relative to top: git's view when top is a work tree's top."""
    try:
        if os.path.realpath(git(top, "rev-parse", "--show-toplevel").strip()) != os.path.realpath(top):
            raise OSError("not the top of a work tree")
        out = git(top, "ls-files", "--cached", "--others", "--exclude-standard")
        files = [f for f in out.splitlines() if os.path.isfile(os.path.join(top, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d != ".git"]
            rel = os.path.relpath(root, top)
            for n in names:
                files.append(n if rel == "." else os.path.join(rel, n))
    return sorted(set(files))


def kind_of(path, top):
    """'c' (C-like comments), 'hash' (# comments), 'text' (all of it) or None."""
    if path.startswith(SKIP_DIRS):
        return None
    base = os.path.basename(path)
    ext = base.rsplit(".", 1)[1] if "." in base else ""
    if ext in ("c", "h", "js", "mjs"):
        return "c"
    if ext in ("sh", "bash", "py", "mk") or base in ("Makefile", ".clang-format"):
        return "hash"
    if ext == "md" or re.fullmatch(r"docs/man/[^/]+\.[0-9]", path):
        return "text"
    if ext == "":
        try:
            with open(os.path.join(top, path), "rb") as f:
                first = f.readline(200)
        except OSError:
            return None
        if re.match(rb"#!\s*/(usr/)?bin/(env\s+)?(ba)?sh\b", first):
            return "hash"
    return None


def c_comments(text):
    """(line, comment text) of the /* */ and // comments of C or JavaScript source."""
    out = []
    i, n, line = 0, len(text), 1
    state, buf, start = None, [], 1
    while i < n:
        ch = text[i]
        if state is None:
            if text.startswith("/*", i) or text.startswith("//", i):
                state = text[i:i + 2]
                buf, start = [], line
                i += 2
                continue
            if ch in "\"'`":
                state = ch
        elif state == "/*":
            if text.startswith("*/", i):
                out.append((start, "".join(buf)))
                state = None
                i += 2
                continue
            buf.append(ch)
        elif state == "//":
            if ch == "\n":
                out.append((start, "".join(buf)))
                state = None
            else:
                buf.append(ch)
        else:  # inside a string: ends at its quote or, but for a template literal, the line
            if ch == "\\":
                i += 1
            elif ch == state or (ch == "\n" and state != "`"):
                state = None
        if i < n and text[i] == "\n":
            line += 1
            if state == "/*":
                out.append((start, "".join(buf)))
                buf, start = [], line
        i += 1
    if state in ("/*", "//"):
        out.append((start, "".join(buf)))
    return out


HEREDOC = re.compile(r"(?<!<)<<(?!<)-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def hash_comments(text, python):
    """(line, comment text) of the # comments of shell, Python and make, and of Python's
    docstrings (a line with three double quotes opens or closes one); heredoc bodies and
    other quoted strings are not comments."""
    out = []
    heredoc = None
    doc = False
    for no, ln in enumerate(text.split("\n"), 1):
        if heredoc is not None:
            if ln.strip() == heredoc:
                heredoc = None
            continue
        if python and (doc or ln.lstrip().startswith('"""')):
            out.append((no, ln.replace('"""', "")))
            if ln.count('"""') % 2 == 1:
                doc = not doc
            continue
        quote = None
        i = 0
        while i < len(ln):
            ch = ln[i]
            if quote:
                if ch == "\\" and quote == '"':
                    i += 1
                elif ch == quote:
                    quote = None
            elif ch == "\\":
                i += 1
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (i == 0 or ln[i - 1] in " \t;(|&"):
                out.append((no, ln[i + 1:]))
                break
            i += 1
        m = HEREDOC.search(ln[:i])
        if m:
            heredoc = m.group(2)
    return out


ROFF = re.compile(r"\\f[BIRP]|\\f\(..|\\&|\\\(..")


def text_lines(text, is_man):
    out = []
    for no, ln in enumerate(text.split("\n"), 1):
        if is_man:
            ln = ROFF.sub("", ln).replace("\\-", "-").replace("\\e", "\\")
        out.append((no, ln))
    return out


def glob_re(pat):
    """A regular expression for a glob of one path: * and ? stay inside a component."""
    out = []
    for ch in pat:
        out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
    return re.compile("".join(out) + r"/?")


def braces(pat):
    """The alternatives of the first {a,b} group, expanded recursively."""
    m = re.search(r"\{([^{}]*)\}", pat)
    if not m:
        return [pat]
    out = []
    for alt in m.group(1).split(","):
        out.extend(braces(pat[:m.start()] + alt + pat[m.end():]))
    return out


# The words that stand for any name in a usage line or a pattern: tests/fuzz/corpus/TARGET,
# tests/fixtures/col_NAME.c, X_internal.h.  (Not any capitals: README.md is a file name.)
PLACEHOLDER = re.compile(r"(?<![A-Za-z])(?:NAME|TARGET|FILE|DIR|KIND|MODULE|MODE|PAGE|[A-Z])(?![A-Za-z])")


class Tree:
    def __init__(self, files):
        self.files = set(files)
        self.dirs = set()
        for f in files:
            d = os.path.dirname(f)
            while d and d not in self.dirs:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.names = {os.path.basename(f) for f in files}
        self.tops = sorted({f.split("/", 1)[0] for f in files if "/" in f})

    def exists(self, p):
        p = p.rstrip("/")
        return p in self.files or p in self.dirs

    def glob(self, pat, pool):
        rx = glob_re(pat)
        return any(rx.fullmatch(x) for x in pool)

    def built_from(self, p, exists):
        """A build product of a source of the tree: X or X.o from X.c, X.pb-c.[ch] from
        X.proto."""
        m = re.fullmatch(r"(.*)\.pb-c\.[ch]", p)
        if m:
            return exists(m.group(1) + ".proto")
        stem = p[:-2] if p.endswith(".o") else p
        if "." in os.path.basename(stem) and not p.endswith(".o"):
            return False
        return exists(stem + ".c") or exists(stem + ".h")

    def resolve(self, p, bare):
        """True when p (a path from the top, or a bare file name) names something here."""
        pool = self.names if bare else self.files | {d + "/" for d in self.dirs}
        exists = self.names.__contains__ if bare else self.exists
        for alt in braces(p):
            if "*" in alt or "?" in alt:
                if not self.glob(alt, pool):
                    return False
                continue
            if exists(alt) or self.built_from(alt, exists):
                continue
            ph = PLACEHOLDER.sub("*", alt)
            if ph != alt and (self.glob(ph, pool) or self.built_from(ph, lambda x: self.glob(x, pool))):
                continue
            return False
        return True


def scanner(tops):
    top_alt = "|".join(re.escape(t) for t in sorted(tops, key=len, reverse=True))
    seg = r"(?:[\w.+*?-]|\{[\w.,*+/-]*\})+"
    # Not inside a longer path, a URL, a variable or an option: /x/tests/..., $top/...
    lead = r"(?<![\w./$@%~+=-])"
    path = re.compile(lead + r"((?:%s)/(?:%s/?)*)" % (top_alt, seg))
    ext = "|".join(TEXT_EXT)
    # and a bare name not inside <>: <gelf.h> is a system header
    bare = re.compile(r"(?<![\w./$@%~+=<-])((?:[\w+*-]|\{[\w.,*+-]*\})+(?:\.[\w+*-]+)*\.(?:"
                      + ext + r"))(?![\w/*{-])")
    return path, bare


def tokens(text, path_re, bare_re):
    """(name, is_bare) for each path-like token of one line of comment or doc text."""
    out = []
    taken = []
    for m in path_re.finditer(text):
        p = m.group(1).rstrip(".,;:")
        taken.append((m.start(1), m.end(1)))
        out.append((p, False))
    for m in bare_re.finditer(text):
        if any(s <= m.start(1) < e for s, e in taken):
            continue
        out.append((m.group(1), True))
    return out


LINK = re.compile(r"\]\(([^()\s#]*)#([^()\s]+)\)")


def anchors(path):
    """The anchors of a markdown file's headings, as GitHub makes them: lower case, every
    character but letters, digits, _, - and spaces dropped, spaces made -, a repeated one
    given -1, -2, ...; headings inside ``` blocks are not headings."""
    out, seen, fence = set(), {}, False
    with open(path, encoding="utf-8", errors="replace") as f:
        for ln in f:
            if ln.startswith("```"):
                fence = not fence
            m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", ln)
            if not m:
                continue
            a = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else "%s-%d" % (a, n))
    return out


def bad_links(top, f, lines):
    """"FILE:LINE: links to ..." for each [text](PAGE.md#anchor) or [text](#anchor) of a
    markdown file whose page has no heading of that anchor."""
    out = []
    for no, ln in lines:
        for m in LINK.finditer(ln):
            page, anchor = m.group(1), m.group(2)
            if page and (not page.endswith(".md") or "://" in page):
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(f), page)) if page else f
            path = os.path.join(top, target)
            if not os.path.isfile(path) or anchor not in anchors(path):
                out.append("%s:%d: links to %s#%s, which has no such heading" % (f, no, page, anchor))
    return out


def read_allow(top):
    """{NAME: line} of scripts/paths-allow.txt."""
    allow = {}
    path = os.path.join(top, ALLOW)
    if not os.path.exists(path):
        return allow
    with open(path, encoding="utf-8") as f:
        for no, ln in enumerate(f, 1):
            ln = ln.split("#", 1)[0].split()
            if not ln:
                continue
            if len(ln) != 1:
                die("%s:%d: expected one name a line" % (ALLOW, no))
            allow[ln[0]] = no
    return allow


def main(argv):
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    args = argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(args) == 2 and args[0] == "-C":
        top = args[1]
    elif args:
        die("usage: paths-check.py [-C TOP]")
    top = os.path.abspath(top)
    if not os.path.isdir(top):
        die("%s is not a directory" % top)
    tree = Tree(list_files(top))
    path_re, bare_re = scanner(tree.tops)
    allow = read_allow(top)
    used = set()
    checked = nfiles = 0
    missing = []
    for f in sorted(tree.files):
        kind = kind_of(f, top)
        if kind is None:
            continue
        try:
            with open(os.path.join(top, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as e:
            die("%s: %s" % (f, e.strerror))
        nfiles += 1
        if kind == "c":
            lines = c_comments(text)
        elif kind == "hash":
            lines = hash_comments(text, f.endswith(".py"))
        else:
            lines = text_lines(text, f.startswith("docs/man/"))
        for no, ln in lines:
            for name, bare in tokens(ln, path_re, bare_re):
                checked += 1
                if tree.resolve(name, bare):
                    continue
                if name in allow:
                    used.add(name)
                    continue
                missing.append("%s:%d: names %s, which does not exist" % (f, no, name))
        if f.endswith(".md"):
            missing.extend(bad_links(top, f, lines))
    for name, no in sorted(allow.items(), key=lambda kv: kv[1]):
        if name not in used:
            missing.append("%s:%d: allows %s, which no comment or doc needs now" % (ALLOW, no, name))
    for m in missing:
        print(m)
    print("paths-check: %d names in %d files checked, %d missing" % (checked, nfiles, len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
