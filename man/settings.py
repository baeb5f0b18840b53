#!/usr/bin/env python3
"""man/settings.py - reads man/settings.txt, the one table of hprof's
HPROF_* settings, and writes it as:

  settings.py man TEMPLATE SETTINGS VERSION   hprof(7): TEMPLATE with
        @VERSION@, @DATE@ and @ENVIRONMENT@ (the settings in roff) filled in
  settings.py markdown SETTINGS               the same tables in Markdown
  settings.py names SETTINGS                  the names, one a line
  settings.py accepts SETTINGS                the run-time settings whose
        values are a range or a list of words: "NAME<TAB>range A B" with
        the bounds as numbers, or "NAME<TAB>words a|b|c" sorted

The date is SOURCE_DATE_EPOCH's when set (reproducible builds), else the
settings file's modification time.
"""
import os
import re
import sys
import time


def read_groups(path):
    """[(heading, intro lines, [entry])], entry = dict(name, values,
    default, text lines)."""
    groups, entry = [], None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("#"):
                continue
            if line.startswith("== "):
                groups.append((line[3:].strip(), [], []))
                entry = None
            elif not line.strip():
                entry = None
            elif re.match(r"(name|values|default): ", line):
                key, value = line.split(": ", 1)
                if key == "name":
                    entry = {"name": value.strip(), "text": []}
                    groups[-1][2].append(entry)
                elif entry is None:
                    sys.exit(f"{path}: '{line}' outside an entry")
                else:
                    entry[key] = value.strip()
            elif entry is not None:
                entry["text"].append(line.strip())
            elif groups:
                groups[-1][1].append(line.strip())
            else:
                sys.exit(f"{path}: text before the first '== heading'")
    for _, _, entries in groups:
        for e in entries:
            for key in ("values", "default"):
                if key not in e:
                    sys.exit(f"{path}: {e['name']} has no '{key}:' line")
    return groups


def roff_text(s):
    """Plain text as roff: backslashes escaped, `code` in bold."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"`([^`]*)`", r"\\fB\1\\fR", s)


def roff_lines(lines):
    """A paragraph as one filled roff line (a `code` span may cross the
    source's lines), protected should it start like a request."""
    if not lines:
        return []
    text = roff_text(" ".join(lines))
    return ["\\&" + text if text[:1] in (".", "'") else text]


def environment_roff(groups):
    out = []
    for heading, intro, entries in groups:
        out += [".SS " + roff_text(heading)]
        out += roff_lines(intro)
        for e in entries:
            out += [".TP", ".B " + e["name"]]
            out += roff_lines(e["text"])
            out += [".br", "Values: " + roff_text(e["values"]) +
                    "; default: " + roff_text(e["default"]) + "."]
    return "\n".join(out)


def doc_date(path):
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    t = int(epoch) if epoch and epoch.isdigit() else int(os.stat(path).st_mtime)
    return time.strftime("%B %Y", time.gmtime(t))


def write_man(template, settings, version):
    groups = read_groups(settings)
    with open(template, encoding="utf-8") as f:
        page = f.read()
    page = page.replace("@VERSION@", version).replace("@DATE@", doc_date(settings))
    page = page.replace("@ENVIRONMENT@", environment_roff(groups))
    sys.stdout.write(page)


def md_cell(s):
    return s.replace("|", "\\|")


def write_markdown(settings):
    out = []
    for heading, intro, entries in read_groups(settings):
        out += ["### " + heading, ""]
        if intro:
            out += [" ".join(intro), ""]
        out += ["| variable | values | default | meaning |", "|---|---|---|---|"]
        for e in entries:
            out.append("| `%s` | %s | %s | %s |" % (
                e["name"], md_cell(e["values"]), md_cell(e["default"]),
                md_cell(" ".join(e["text"]))))
        out.append("")
    sys.stdout.write("\n".join(out))


def bound(text):
    """A bound of a range: digits, or a power such as 2^30 or 2^32-1."""
    m = re.fullmatch(r"(\d+)(?:\^(\d+))?(?:-(\d+))?", text)
    if not m:
        return None
    base, power, minus = m.groups()
    value = int(base) ** int(power) if power else int(base)
    return value - int(minus or 0)


def write_accepts(settings):
    """What the first group's settings accept, for the check against
    libhprof's messages."""
    _, _, entries = read_groups(settings)[0]
    for e in entries:
        values = e["values"]
        m = re.fullmatch(r"(\S+) to (\S+)", values)
        if m and bound(m.group(1)) is not None and bound(m.group(2)) is not None:
            print("%s\trange %d %d" % (e["name"], bound(m.group(1)), bound(m.group(2))))
        elif re.fullmatch(r"[a-z0-9]+(, [a-z0-9]+)+", values):
            print("%s\twords %s" % (e["name"], "|".join(sorted(values.split(", ")))))


def main(argv):
    if len(argv) == 5 and argv[1] == "man":
        write_man(argv[2], argv[3], argv[4])
    elif len(argv) == 3 and argv[1] == "markdown":
        write_markdown(argv[2])
    elif len(argv) == 3 and argv[1] == "accepts":
        write_accepts(argv[2])
    elif len(argv) == 3 and argv[1] == "names":
        for _, _, entries in read_groups(argv[2]):
            for e in entries:
                print(e["name"])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
