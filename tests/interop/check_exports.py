#!/usr/bin/env python3
"""Interop check: builds a dataset over HTTP from the planted Turkish corpus and reads every export
back with the library its users read it with. Usage:

    check_exports.py BASE_URL DATA_DIR CORPUS_DIR

DATA_DIR is the server's storage.data_dir (the signup mail is read from its outbox). Exits non-zero on
the first failure, naming it.
"""
import csv
import io
import json
import pathlib
import re
import sys
import tempfile
import time
import urllib.request
import uuid
import zipfile

BASE, DATA_DIR, CORPUS = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])


def request(method, path, body=None, headers=None, raw=False):
    headers = dict(headers or {})
    data = None
    if isinstance(body, dict):
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    elif isinstance(body, bytes):
        data = body
    req = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as response:
            payload = response.read()
            return response.status, (payload if raw else json.loads(payload or b"null")), response.headers
    except urllib.error.HTTPError as error:
        payload = error.read()
        return error.code, (payload if raw else json.loads(payload or b"null")), error.headers


def multipart(files):
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, content in files:
        out.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\n"
                  "Content-Type: application/octet-stream\r\n\r\n".encode())
        out.write(content)
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


# An account, verified through the outbox.
email, password = f"interop-{uuid.uuid4().hex[:8]}@example.com", "interop-password-1"
status, body, _ = request("POST", "/v1/auth/signup", {"email": email, "password": password})
check(status == 201, f"signup: {status} {body}")
token = None
for _ in range(100):
    for mail in sorted((DATA_DIR / "outbox").glob("*verify_email*.eml")):
        text = mail.read_text().replace("=\r\n", "").replace("=\n", "").replace("=3D", "=")
        found = re.findall(r"^\s*([0-9a-f]{64})\s*$", text, re.M)
        if found:
            token = found[0]
    if token:
        break
    time.sleep(0.05)
check(token, "no verification mail")
status, body, _ = request("POST", "/v1/auth/verify-email", {"token": token})
check(status == 200, f"verify: {status} {body}")
status, body, _ = request("POST", "/v1/auth/login", {"email": email, "password": password})
check(status == 200, f"login: {status} {body}")
auth = {"Authorization": f"Bearer {body['data']['access_token']}"}

# The planted documents.
documents = sorted(p for p in (CORPUS / "tr").iterdir() if not p.name.endswith(".pii.json"))
planted = set()
for document in documents:
    sidecar = json.loads((CORPUS / "tr" / (document.name + ".pii.json")).read_text())
    planted.update(item["value"] for item in sidecar["pii"] if len(item["value"]) >= 6)
payload, content_type = multipart([(d.name, d.read_bytes()) for d in documents])
status, body, _ = request("POST", "/v1/data-process/async", payload, {**auth, "Content-Type": content_type})
check(status == 202, f"upload: {status} {body}")
job_ids = body["data"]["job_ids"]
check(len(job_ids) == len(documents), f"every planted document is accepted: {body}")
deadline = time.time() + 600
while True:
    views = [request("GET", f"/v1/jobs/{job}", headers=auth)[1]["data"] for job in job_ids]
    if all(v["status"] in ("completed", "failed") for v in views):
        break
    check(time.time() < deadline, f"jobs did not finish: {views}")
    time.sleep(0.5)
executions = [v["execution_id"] for v in views if v["status"] == "completed"]
check(len(executions) >= len(documents) - 1, f"most documents processed: {views}")

status, body, _ = request("POST", "/v1/datasets",
                          {"name": "interop check", "execution_ids": [executions[0]] + [str(e) for e in executions[1:]]},
                          auth)
check(status == 202, f"dataset: {status} {body}")
dataset_id = body["data"]["id"]
while True:
    status, body, _ = request("GET", f"/v1/datasets/{dataset_id}", headers=auth)
    if body["data"]["status"] in ("ready", "failed"):
        break
    check(time.time() < deadline, "dataset never became ready")
    time.sleep(0.2)
check(body["data"]["status"] == "ready", f"dataset built: {body}")
rows = len(executions)
check(body["data"]["row_count"] == rows, f"row count {body['data']['row_count']} != {rows}")


def no_raw_values(text, where):
    leaked = [value for value in planted if value in text]
    check(not leaked, f"{where} carries raw personal values: {leaked[:5]}")


def download(fmt):
    status, content, headers = request("GET", f"/v1/datasets/{dataset_id}/export?format={fmt}", headers=auth, raw=True)
    check(status == 200, f"export {fmt}: {status} {content[:300]}")
    check("attachment" in headers.get("Content-Disposition", ""), f"{fmt}: Content-Disposition")
    return content


import pandas  # noqa: E402
import pyarrow.parquet  # noqa: E402
import openpyxl  # noqa: E402
from lxml import etree  # noqa: E402
import datasets  # noqa: E402

content = download("jsonl")
lines = [json.loads(line) for line in content.decode().splitlines()]
check(len(lines) == rows, f"jsonl rows {len(lines)}")
no_raw_values(json.dumps(lines, ensure_ascii=False), "jsonl")

content = download("csv")
frame = pandas.read_csv(io.BytesIO(content))
check(len(frame) == rows, f"csv rows {len(frame)}")
check(list(frame.columns)[:3] == ["execution_id", "document_id", "filename"], f"csv columns {list(frame.columns)}")
no_raw_values(frame.to_csv(), "csv")

content = download("parquet")
table = pyarrow.parquet.read_table(io.BytesIO(content))
check(table.num_rows == rows, f"parquet rows {table.num_rows}")
check(str(table.schema.field("execution_id").type) == "int64", f"parquet types {table.schema}")
no_raw_values(json.dumps(table.to_pylist(), default=str, ensure_ascii=False), "parquet")

content = download("xml")
root = etree.fromstring(content)
check(len(root.findall("row")) == rows, f"xml rows {len(root.findall('row'))}")
no_raw_values(etree.tostring(root, encoding="unicode"), "xml")

content = download("xlsx")
workbook = openpyxl.load_workbook(io.BytesIO(content), read_only=True)
sheet_rows = list(workbook.active.iter_rows(values_only=True))
check(len(sheet_rows) == rows + 1, f"xlsx rows {len(sheet_rows)}")
no_raw_values(json.dumps(sheet_rows, default=str, ensure_ascii=False), "xlsx")

content = download("markdown")
check(content.decode().count("\n## ") == rows, "markdown: a heading per document")
no_raw_values(content.decode(), "markdown")

content = download("hf")
with tempfile.TemporaryDirectory() as folder:
    zipfile.ZipFile(io.BytesIO(content)).extractall(folder)
    loaded = datasets.load_from_disk(folder)
    check(loaded.num_rows == rows, f"load_from_disk rows {loaded.num_rows}")
    shard = datasets.Dataset.from_file(str(pathlib.Path(folder) / "data-00000-of-00001.arrow"))
    check(shard.num_rows == rows, f"from_file rows {shard.num_rows}")
    no_raw_values(json.dumps(loaded.to_list(), default=str, ensure_ascii=False), "arrow")

status, body, _ = request("GET", f"/v1/datasets/{dataset_id}/export?format=pdf", headers=auth)
check(status == 422, f"unknown format: {status}")
print(f"interop: {rows} rows read back from jsonl, csv, parquet, xml, xlsx, markdown and HuggingFace arrow; "
      f"no raw value of {len(planted)} planted ones")

# Masked files in their own format: each planted office document (tests/documents/redaction) sent to
# POST /v1/data-process/redact comes back as itself; python-docx, openpyxl and python-pptx open the OOXML
# ones and count the same paragraphs, tables, sheets and slides as in the original; no planted value or author is
# in any part of it; LibreOffice opens it too (converted to PDF below, where LibreOffice is installed).
import docx  # noqa: E402
import pptx  # noqa: E402

REDACTION = pathlib.Path("tests/documents/redaction")


def shape_of(suffix, content):
    """What must not change: paragraphs and tables, sheets and their sizes, slides and their shapes."""
    stream = io.BytesIO(content)
    if suffix == ".docx":
        document = docx.Document(stream)
        return (len(document.paragraphs), len(document.tables),
                [len(t.rows) for t in document.tables], len(document.sections))
    if suffix == ".xlsx":
        book = openpyxl.load_workbook(stream)
        return [(sheet.title, sheet.max_row, sheet.max_column) for sheet in book.worksheets]
    deck = pptx.Presentation(stream)
    return [len(slide.shapes) for slide in deck.slides]


def part_texts(content):
    with zipfile.ZipFile(io.BytesIO(content)) as package:
        for name in package.namelist():
            raw = package.read(name).decode("utf-8", errors="replace")
            yield name, html_unescape(raw)


from html import unescape as html_unescape  # noqa: E402

redacted_files = []
for original in sorted(REDACTION.glob("planted.*")):
    if original.suffix == ".json":
        continue
    sidecar = json.loads((REDACTION / (original.name + ".pii.json")).read_text())
    secrets = [item["value"] for item in sidecar["pii"]] + sidecar["metadata"]
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Ayşe Yılmaz{original.suffix}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + original.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    status, content, headers = request("POST", "/v1/data-process/redact", body,
                                       {**auth, "Content-Type": f"multipart/form-data; boundary={boundary}"}, raw=True)
    check(status == 200, f"redact {original.name}: {status} {content[:400]}")
    disposition = headers.get("Content-Disposition", "")
    check(disposition.endswith(f'{original.suffix}"') and "Yılmaz" not in disposition and "Yilmaz" not in disposition,
          f"{original.name}: the download's name is masked and keeps its extension: {disposition}")
    check(int(headers.get("X-Docsieve-Pii-Count", "0")) > 0, f"{original.name}: findings counted")
    if original.suffix in (".docx", ".xlsx", ".pptx"):
        check(shape_of(original.suffix, content) == shape_of(original.suffix, original.read_bytes()),
              f"{original.name}: the structure changed: {shape_of(original.suffix, content)}")
    for name, text in part_texts(content):
        leaked = [s for s in secrets if s in text]
        check(not leaked, f"{original.name}: {name} still holds {len(leaked)} planted value(s)")
    redacted_files.append((original.name, content))
print(f"interop: {len(redacted_files)} office files redacted in their own format; python-docx, openpyxl and "
      "python-pptx read the same structure, and no planted value or author is in any part")

# PDFs and an e-invoice: a text PDF and a scanned one come back as PDFs that poppler reads (pdftotext,
# pdfinfo) with the same pages and no planted value in their text or in any decompressed stream; the
# e-invoice comes back as XML that lxml parses into the same elements, without a planted value.
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import zlib  # noqa: E402


def redact_file(name, content):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
    status, answer, headers = request("POST", "/v1/data-process/redact", body,
                                      {**auth, "Content-Type": f"multipart/form-data; boundary={boundary}"}, raw=True)
    check(status == 200, f"redact {name}: {status} {answer[:400]}")
    return answer, headers


def streams(pdf):
    for raw in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            yield zlib.decompress(raw).decode("latin-1")
        except zlib.error:
            yield raw.decode("latin-1")


pdftotext = shutil.which("pdftotext")
check(pdftotext is not None or os.environ.get("CI") != "true", "poppler-utils is not installed; .ci/run installs it")
fatura = CORPUS / "tr" / "tr_fatura_yazisi.pdf"
planted_pdf = [item["value"] for item in json.loads((CORPUS / "tr" / "tr_fatura_yazisi.pdf.pii.json").read_text())["pii"]]
scan_id = "318273645"  # the national id tests/documents/make_scanned.py draws
for name, original, values in [("fatura.pdf", fatura.read_bytes(), planted_pdf),
                               ("tarama.pdf", pathlib.Path("tests/documents/scanned_ccitt_tr.pdf").read_bytes(), [scan_id])]:
    content, headers = redact_file(name, original)
    check(content.startswith(b"%PDF-"), f"{name}: not a PDF")
    inside = "\n".join(streams(content))
    check(not [v for v in values if v in inside], f"{name}: a planted value is in a stream of the redacted PDF")
    if pdftotext is None:
        continue
    with tempfile.TemporaryDirectory() as folder:
        before, after = pathlib.Path(folder) / "before.pdf", pathlib.Path(folder) / "after.pdf"
        before.write_bytes(original)
        after.write_bytes(content)
        text = subprocess.run([pdftotext, str(after), "-"], capture_output=True, check=True).stdout.decode()
        check(not [v for v in values if v in text], f"{name}: pdftotext reads a planted value")
        pages = [re.search(rb"Pages:\s+(\d+)", subprocess.run(["pdfinfo", str(p)], capture_output=True, check=True).stdout)[1]
                 for p in (before, after)]
        check(pages[0] == pages[1], f"{name}: {pages[0]} pages became {pages[1]}")
invoice = (CORPUS / "tr" / "tr_efatura.xml").read_bytes()
content, headers = redact_file("fatura.xml", invoice)
planted_xml = [item["value"] for item in json.loads((CORPUS / "tr" / "tr_efatura.xml.pii.json").read_text())["pii"]]
check(not [v for v in planted_xml if v in content.decode()], "fatura.xml: a planted value is left")
tags = [[element.tag for element in etree.fromstring(x).iter()] for x in (invoice, content)]
check(tags[0] == tags[1], "fatura.xml: the elements changed")
print("interop: two PDFs redacted (pdftotext and pdfinfo read them, same pages, no planted value in any stream) "
      "and an e-invoice (lxml reads the same elements, no planted value)")

# A spreadsheet in OpenDocument form: no planted value in any part; LibreOffice opens it below.
sheet_path = pathlib.Path("tests/documents/office/tr_musteri_tablosu.ods")
content, headers = redact_file("tablo.ods", sheet_path.read_bytes())
planted_sheet = [item["value"] for item in json.loads((sheet_path.parent / (sheet_path.name + ".pii.json")).read_text())["pii"]]
for name, text in part_texts(content):
    check(not [v for v in planted_sheet if v in text], f"tablo.ods: {name} still holds a planted value")
redacted_files.append(("tablo.ods", content))

# An e-mail: Python's email package parses the masked message into the same tree of parts; no planted
# value is in a header, a body or the attached payslip (a PDF, read by pdftotext).
import email  # noqa: E402
import email.policy  # noqa: E402

mail = (CORPUS / "tr" / "tr_eposta.eml").read_bytes()
content, headers = redact_file("posta.eml", mail)
planted_mail = [item["value"] for item in json.loads((CORPUS / "tr" / "tr_eposta.eml.pii.json").read_text())["pii"]]
trees = [[part.get_content_type() for part in email.message_from_bytes(x, policy=email.policy.default).walk()]
         for x in (mail, content)]
check(trees[0] == trees[1], f"posta.eml: the tree of parts changed: {trees}")
parsed = email.message_from_bytes(content, policy=email.policy.default)
seen = [str(parsed[name] or "") for name in ("From", "To", "Cc", "Subject")]
for part in parsed.walk():
    if part.get_content_maintype() == "multipart":
        continue
    if part.get_content_maintype() == "text":
        seen.append(part.get_content())
    elif part.get_content_type() == "application/pdf" and pdftotext is not None:
        with tempfile.NamedTemporaryFile(suffix=".pdf") as attached:
            attached.write(part.get_content())
            attached.flush()
            seen.append(subprocess.run([pdftotext, attached.name, "-"], capture_output=True, check=True).stdout.decode())
check(not [v for v in planted_mail if any(v in text for text in seen)], "posta.eml: a planted value is left")
print(f"interop: an e-mail redacted; Python's email package reads the same {len(trees[1])} parts and pdftotext "
      "the attached payslip, without a planted value")

# An Outlook item comes back as e-mail: Python's email package reads it, without a planted value in a
# header or a body.
item_path = pathlib.Path("tests/documents/office/tr_odeme_talimati.msg")
content, headers = redact_file("talimat.msg", item_path.read_bytes())
check(headers.get("Content-Type", "").startswith("message/rfc822"), f"talimat.msg: {headers.get('Content-Type')}")
parsed = email.message_from_bytes(content, policy=email.policy.default)
seen = [str(parsed[name] or "") for name in ("From", "To", "Cc", "Subject")]
seen += [part.get_content() for part in parsed.walk() if part.get_content_maintype() == "text"]
planted_item = [item["value"] for item in json.loads((item_path.parent / (item_path.name + ".pii.json")).read_text())["pii"]]
check(seen[3] and len(seen) > 4, f"talimat.msg: the subject or the body is missing: {seen[:5]}")
check(not [v for v in planted_item if any(v in text for text in seen)], "talimat.msg: a planted value is left")

# Legacy Office files, planted and as Microsoft Office wrote them, come back as themselves (compound
# files) without a planted value in their bytes, as UTF-16 or 8-bit text; LibreOffice opens each below,
# with as many pages as the original, and its rendering holds no planted value either.
legacy_values = {}
for legacy_path, planted in [("tests/documents/office/tr_personel_formu.doc", True),
                             ("tests/documents/office/tr_musteri_sunumu.ppt", True),
                             ("tests/documents/msoffice/oletools_harmless-clean.doc", False),
                             ("tests/documents/msoffice/oletools_embedded-simple-2007.ppt", False)]:
    legacy_path = pathlib.Path(legacy_path)
    content, headers = redact_file(legacy_path.name, legacy_path.read_bytes())
    check(content[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", f"{legacy_path.name}: not a compound file")
    values = []
    if planted:
        values = [item["value"] for item in
                  json.loads((legacy_path.parent / (legacy_path.name + ".pii.json")).read_text())["pii"]]
    for value in values:
        check(value.encode("utf-16-le") not in content and value.encode("cp1252", "replace") not in content,
              f"{legacy_path.name}: a planted value is in the redacted file's bytes")
    redacted_files.append((legacy_path.name, content))
    legacy_values[legacy_path.name] = (legacy_path.read_bytes(), values)
print(f"interop: an Outlook item came back as e-mail and {len(legacy_values)} legacy Office files as themselves, "
      "without a planted value")

# Formula injection: a document whose text is a spreadsheet formula. The CSV export neutralises it (a
# leading quote, as OWASP recommends) and the XLSX export writes it as a string; LibreOffice opens both
# without evaluating it. The same formula in a plain CSV is evaluated (the check can fail).
FORMULA = '=HYPERLINK("http://127.0.0.1:9/x","tikla")'
soffice = shutil.which("soffice") or shutil.which("libreoffice")
if soffice is None:
    check(os.environ.get("CI") != "true", "LibreOffice (soffice) is not installed; .ci/run installs it")
    print("interop: LibreOffice is not installed: the formula check is skipped")
    sys.exit(0)
payload, content_type = multipart([("formula.txt", (FORMULA + "\n").encode())])
status, body, _ = request("POST", "/v1/data-process/async", payload, {**auth, "Content-Type": content_type})
check(status == 202, f"formula upload: {status} {body}")
formula_job = body["data"]["job_ids"][0]
while True:
    view = request("GET", f"/v1/jobs/{formula_job}", headers=auth)[1]["data"]
    if view["status"] in ("completed", "failed"):
        break
    check(time.time() < deadline, "the formula job did not finish")
    time.sleep(0.3)
check(view["status"] == "completed", f"formula job: {view}")
status, body, _ = request("POST", "/v1/datasets", {"name": "formula", "execution_ids": [view["execution_id"]]}, auth)
check(status == 202, f"formula dataset: {status} {body}")
dataset_id = body["data"]["id"]
while request("GET", f"/v1/datasets/{dataset_id}", headers=auth)[1]["data"]["status"] not in ("ready", "failed"):
    time.sleep(0.2)


def calc_cells(name, content):
    """Every cell of the first sheet as LibreOffice computes it, converted to CSV by soffice."""
    with tempfile.TemporaryDirectory() as folder:
        source = pathlib.Path(folder) / name
        source.write_bytes(content)
        out = pathlib.Path(folder) / "out"
        profile = pathlib.Path(folder) / "profile"
        subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
                        "csv:Text - txt - csv (StarCalc):44,34,76",
                        "--outdir", str(out), str(source)], check=True, capture_output=True, timeout=180)
        converted = next(out.glob("*.csv")).read_text(encoding="utf-8", errors="replace")
        return [cell for row in csv.reader(io.StringIO(converted)) for cell in row]


control = calc_cells("control.csv", f'a,b\n1,"{FORMULA.replace(chr(34), chr(34) * 2)}"\n'.encode())
check("tikla" in control and not any("HYPERLINK" in c for c in control),
      f"LibreOffice did not evaluate a plain formula, so the check proves nothing: {control}")
for fmt in ("csv", "xlsx"):
    cells = calc_cells(f"export.{fmt}", download(fmt))
    check(any("HYPERLINK(" in cell for cell in cells), f"{fmt}: the formula's text is gone: {cells[:20]}")
    check("tikla" not in cells, f"{fmt}: LibreOffice evaluated the planted formula: {cells[:20]}")
print("interop: LibreOffice opened the csv and xlsx exports without evaluating a planted =HYPERLINK")

for name, content in redacted_files:
    with tempfile.TemporaryDirectory() as folder:
        source = pathlib.Path(folder) / name
        source.write_bytes(content)
        profile = pathlib.Path(folder) / "profile"
        done = subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
                               "pdf", "--outdir", folder, str(source)], capture_output=True, timeout=180)
        converted = pathlib.Path(folder) / (source.stem + ".pdf")
        check(done.returncode == 0 and converted.exists() and converted.stat().st_size > 500,
              f"LibreOffice did not open the redacted {name}: {done.stderr[-400:]}")
        if name in legacy_values and pdftotext is not None:
            original, values = legacy_values[name]
            rendered = subprocess.run([pdftotext, str(converted), "-"], capture_output=True, check=True).stdout.decode()
            check(not [v for v in values if v in rendered], f"{name}: LibreOffice shows a planted value")
            own = pathlib.Path(folder) / "original" / name
            own.parent.mkdir()
            own.write_bytes(original)
            subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
                            "pdf", "--outdir", str(own.parent), str(own)], capture_output=True, timeout=180)
            pages = [re.search(rb"Pages:\s+(\d+)", subprocess.run(["pdfinfo", str(pdf)], capture_output=True).stdout)
                     for pdf in (converted, own.with_suffix(".pdf"))]
            check(pages[0] and pages[1] and pages[0].group(1) == pages[1].group(1),
                  f"{name}: LibreOffice lays the redacted file out on other pages than the original")
print(f"interop: LibreOffice opened the {len(redacted_files)} redacted office files")
