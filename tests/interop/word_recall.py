#!/usr/bin/env python3
"""Word recall of docsieve's extraction against reference readers, per corpus document.

For every text document of the corpus (`expectations.tsv` rows marked `text`, and the Turkish documents
under `tr/` but their image), the words a reference reader finds are compared with the words of
`docsieve extract`: recall = reference words docsieve also gives / reference words (distinct words of
at least one letter, compared in lower case; numbers and dates are left out, as readers format them
differently). The reference readers: `pdftotext` (poppler-utils) for PDF, python-docx, python-pptx,
openpyxl, the `email` package, lxml for HTML and XML (text nodes, not attribute values), and
Python's codecs for text (the encoding the corpus's `expectations.tsv` note names, else the BOM, else
UTF-8, else charset_normalizer's guess). Words are compared after NFKC and case folding (a Turkish
dotted capital I folds to i).

Documents made here (`--documents tests/documents/office`: Word 97-2003, PowerPoint 97-2003, Outlook
items, OpenDocument, RTF, EPUB, mbox) and by Microsoft Office (`--documents tests/documents/msoffice`,
oletools' and olefile's test files) are compared with reference texts committed beside them
(`<file>.reference.txt`, written once with LibreOffice, extract-msg and Python's mailbox: see the
folders' SOURCES.md); for them each format's mean must also reach --format-min.

Usage: word_recall.py DOCSIEVE_BINARY CORPUS_DIR [--documents DIR]... [--min 0.9] [--format-min 0.95]
Prints recall per file and the mean; exits 1 when a file is below --min (or a made format's mean below
--format-min).
"""

import argparse
import csv
import email
import email.policy
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

WORD = re.compile(r"\w+", re.UNICODE)
# Encodings a corpus note may name (the corpus's ground truth for 8-bit text without a declaration).
NOTED = re.compile(r"\b(windows-12\d\d|cp\d{3,4}|iso-8859-\d+|koi8-r)\b", re.IGNORECASE)


def words(text):
    folded = unicodedata.normalize("NFKC", text).casefold().replace("\u0307", "")
    return {w for w in WORD.findall(folded) if any(c.isalpha() for c in w)}


def decode_text(data, noted=None):
    if noted and not data.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return data.decode(noted, errors="replace")
    for bom, codec in (
        (b"\xff\xfe\x00\x00", "utf-32-le"),
        (b"\x00\x00\xfe\xff", "utf-32-be"),
        (b"\xef\xbb\xbf", "utf-8-sig"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        import charset_normalizer

        best = charset_normalizer.from_bytes(data).best()
        return str(best) if best else data.decode("latin-1")


def ref_pdf(path):
    return subprocess.run(
        ["pdftotext", "-q", str(path), "-"], capture_output=True, check=False
    ).stdout.decode("utf-8", errors="replace")


def ref_docx(path):
    import docx

    document = docx.Document(str(path))
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.extend(cell.text for cell in row.cells)
    for section in document.sections:
        for part in (section.header, section.footer):
            parts.extend(p.text for p in part.paragraphs)
            for table in part.tables:
                for row in table.rows:
                    parts.extend(cell.text for cell in row.cells)
    return "\n".join(parts)


def ref_pptx(path):
    import pptx
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    parts = []

    def shape_text(shape):
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            for inner in shape.shapes:
                shape_text(inner)
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            parts.append(shape.text_frame.text)
        if getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                parts.extend(cell.text for cell in row.cells)

    presentation = pptx.Presentation(str(path))
    for slide in presentation.slides:
        for shape in slide.shapes:
            shape_text(shape)
        if slide.has_notes_slide:
            parts.append(slide.notes_slide.notes_text_frame.text)
    return "\n".join(parts)


def ref_xlsx(path):
    import openpyxl

    workbook = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    parts = []
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows(values_only=True):
            parts.extend(str(v) for v in row if v is not None)
    return "\n".join(parts)


def ref_eml(path):
    data = path.read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:200]:
        data = decode_text(data).encode("utf-8")
    message = email.message_from_bytes(data, policy=email.policy.default)
    parts = [str(message.get(h, "")) for h in ("from", "to", "cc", "subject")]
    for part in message.walk():
        if part.get_content_maintype() == "text" and not part.is_attachment():
            try:
                content = part.get_content()
            except (LookupError, UnicodeDecodeError):
                content = part.get_payload(decode=True).decode("latin-1")
            if part.get_content_subtype() == "html":
                import lxml.html

                content = " ".join(lxml.html.fromstring(content or "<p></p>").itertext())
            parts.append(content)
    return "\n".join(parts)


def ref_html(path):
    import lxml.html

    data = path.read_bytes()
    root = lxml.html.fromstring(decode_text(data) if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data)
    for bad in root.xpath("//script|//style"):
        bad.drop_tree()
    return " ".join(root.itertext())


def ref_xml(path):
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)
    root = etree.fromstring(path.read_bytes(), parser)
    if root is None:
        return ""
    return "\n".join(root.itertext())


READERS = {
    ".pdf": lambda p, _: ref_pdf(p),
    ".docx": lambda p, _: ref_docx(p),
    ".pptx": lambda p, _: ref_pptx(p),
    ".xlsx": lambda p, _: ref_xlsx(p),
    ".eml": lambda p, _: ref_eml(p),
    ".html": lambda p, _: ref_html(p),
    ".xml": lambda p, _: ref_xml(p),
    ".txt": lambda p, noted: decode_text(p.read_bytes(), noted),
    ".csv": lambda p, noted: decode_text(p.read_bytes(), noted),
}


def documents(corpus):
    """(path, encoding the note names) of every text document, once each."""
    listed = {}
    with open(corpus / "expectations.tsv", encoding="utf-8") as table:
        for row in csv.DictReader(table, delimiter="\t"):
            if row["expect"] == "text":
                noted = NOTED.search(row.get("note") or "")
                listed[corpus / row["corpus_path"]] = noted.group(1).lower() if noted else None
    for path in sorted((corpus / "tr").iterdir()):
        listed.setdefault(path, None)
    return [(p, n) for p, n in listed.items() if p.suffix in READERS and p.exists()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("docsieve")
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--min", type=float, default=0.9)
    parser.add_argument("--documents", type=Path, action="append", default=[])
    parser.add_argument("--format-min", type=float, default=0.95)
    args = parser.parse_args()
    results = []
    listed = [(path, noted, None) for path, noted in documents(args.corpus)]
    for folder in args.documents:
        listed += [
            (reference.with_name(reference.name[: -len(".reference.txt")]), None, reference)
            for reference in sorted(folder.glob("*.reference.txt"))
        ]
    by_format = {}
    for path, noted, committed in listed:
        if committed is not None:
            reference = words(committed.read_text(encoding="utf-8"))
        else:
            reference = words(READERS[path.suffix](path, noted))
        run = subprocess.run(
            [args.docsieve, "extract", str(path)], capture_output=True, timeout=120, check=False
        )
        ours = words(run.stdout.decode("utf-8", errors="replace"))
        if not reference:
            print(f"  -    {path.relative_to(args.corpus)}: the reference reader found no words")
            continue
        recall = len(reference & ours) / len(reference)
        missing = sorted(reference - ours)[:8]
        results.append((recall, path))
        if committed is not None:
            by_format.setdefault(path.suffix, []).append(recall)
        note = f"  (missing e.g. {' '.join(missing)})" if recall < 1 else ""
        shown = path.relative_to(args.corpus) if committed is None else path
        print(f"{recall:6.3f} {shown} [{len(reference)} words]{note}")
    mean = sum(r for r, _ in results) / len(results)
    low = [(r, p) for r, p in results if r < args.min]
    print(f"mean word recall {mean:.3f} over {len(results)} documents; {len(low)} below {args.min}")
    weak = []
    for suffix, recalls in sorted(by_format.items()):
        format_mean = sum(recalls) / len(recalls)
        print(f"  {suffix}: mean {format_mean:.3f} over {len(recalls)} made documents")
        if format_mean < args.format_min:
            weak.append(suffix)
    if weak:
        print(f"formats below {args.format_min}: {' '.join(weak)}")
    return 1 if low or weak else 0


if __name__ == "__main__":
    sys.exit(main())
