#!/usr/bin/env python3
"""Makes the office documents of tests/documents/office (see SOURCES.md): a Turkish personnel letter
and a Turkish customer presentation, each with an invented T.C. Kimlik No and IBAN (valid by their
check digits, so that masking must catch them), written with python-docx and python-pptx and then
converted by LibreOffice (through uno_convert.py) into the formats offices still send: Word 97-2003
(.doc), OpenDocument (.odt, .odp, .ods), RTF, EPUB, PowerPoint 97-2003 (.ppt), Excel 97-2003 (.xls),
and password-protected .doc, .odt and .ods (LibreOffice writes no encrypted .ppt). Each document has a `.pii.json` naming the planted values.

Also two Outlook items (msgforge) and an mbox of two messages (Python's mailbox).

Needs python-docx, python-pptx, openpyxl, msgforge, LibreOffice (Debian's libreoffice-writer-nogui,
-impress-nogui, -calc-nogui) and python3-uno. Run from the repository root:
    python3 tests/documents/make_office.py
`--references` writes only the reference texts of the word-recall check (`<file>.reference.txt`).
Never run by the tests or CI: the files it writes are committed.
"""
import json
import os
import subprocess
import tempfile

import datetime
import mailbox
from email.message import EmailMessage

import docx
import msgforge
import openpyxl
import pptx
from pptx.util import Inches

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "office")


def tckn(first_nine):
    d = [int(c) for c in first_nine]
    d10 = (7 * sum(d[0:9:2]) - sum(d[1:8:2])) % 10
    d11 = (sum(d) + d10) % 10
    return first_nine + str(d10) + str(d11)


def iban_tr(bank, account):
    """A Turkish IBAN (TR, 2 check digits, 5-digit bank code, reserve 0, 16-digit account)."""
    bban = f"{bank:05d}0{account:016d}"
    digits = "".join(str(int(c, 36)) for c in bban + "TR00")
    check = 98 - int(digits) % 97
    raw = f"TR{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


NAME = "Gülşen Çakıroğlu"
NATIONAL_ID = tckn("318273645")
IBAN = iban_tr(62, 6297851203461107)
SECOND_ID = tckn("497531286")
SECOND_IBAN = iban_tr(10, 4455667788990011)
PLANTED = [
    {"type": "national_id_tr", "value": NATIONAL_ID},
    {"type": "iban_tr", "value": IBAN},
]


def letter(path):
    document = docx.Document()
    document.core_properties.author = "Deniz Yıldırım"
    document.core_properties.title = "Personel Bilgi Formu"
    section = document.sections[0]
    section.header.paragraphs[0].text = "Örnek Gıda Sanayi A.Ş. — İnsan Kaynakları"
    section.footer.paragraphs[0].text = "Bu belge kişisel veri içerir; KVKK kapsamında saklanır."
    document.add_heading("Personel Bilgi Formu", level=1)
    document.add_paragraph("Sayın İnsan Kaynakları Müdürlüğü,")
    document.add_paragraph(
        f"Şirketimizde çalışan {NAME} (T.C. Kimlik No {NATIONAL_ID}) için maaş ödemelerinin "
        f"{IBAN} numaralı hesaba yapılmasını rica ederiz. Çalışanımız öğleden sonra işe başlamıştır."
    )
    document.add_heading("Ödeme bilgileri", level=2)
    table = document.add_table(rows=3, cols=3)
    for row, cells in zip(table.rows, [
        ("Ad Soyad", "T.C. Kimlik No", "IBAN"),
        (NAME, NATIONAL_ID, IBAN),
        ("Ilıca Çiğdem Şahin", SECOND_ID, SECOND_IBAN),
    ]):
        for cell, text in zip(row.cells, cells):
            cell.text = text
    document.add_paragraph("Ödeme günü her ayın on beşi, çarşamba ise bir gün sonrasıdır.", style="List Bullet")
    document.add_paragraph("Bordro örneği ekte sunulmuştur.", style="List Bullet")
    document.add_paragraph("Saygılarımızla, Deniz Yıldırım, İnsan Kaynakları Uzmanı")
    document.save(path)


def presentation(path):
    deck = pptx.Presentation()
    deck.core_properties.author = "Deniz Yıldırım"
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Müşteri Sunumu: Ödeme Planı"
    body = slide.placeholders[1].text_frame
    body.text = f"Müşteri: {NAME}"
    for line in (f"T.C. Kimlik No: {NATIONAL_ID}", f"IBAN: {IBAN}", "Taksit günü: çarşamba öğleden sonra"):
        body.add_paragraph().text = line
    slide.notes_slide.notes_text_frame.text = "Konuşmacı notu: müşteriyle şubede görüşüldü."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Hesap Özeti"
    rows = [("Ad Soyad", "T.C. Kimlik No", "IBAN"), ("Ilıca Çiğdem Şahin", SECOND_ID, SECOND_IBAN)]
    shape = second.shapes.add_table(len(rows), 3, Inches(0.5), Inches(1.8), Inches(9), Inches(1.2))
    for r, values in enumerate(rows):
        for c, text in enumerate(values):
            shape.table.cell(r, c).text = text
    deck.save(path)


def workbook(path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Müşteriler"
    sheet.append(["Ad Soyad", "T.C. Kimlik No", "IBAN", "Şehir"])
    sheet.append([NAME, NATIONAL_ID, IBAN, "Diyarbakır"])
    sheet.append(["Ilıca Çiğdem Şahin", SECOND_ID, SECOND_IBAN, "Iğdır"])
    book.save(path)


def outlook_items(letter_path):
    """An Outlook item with a plain and an HTML body and the letter attached (msgforge), and one with
    an HTML body only."""
    sent = datetime.datetime(2026, 3, 4, 9, 30, tzinfo=datetime.timezone.utc)
    body = (
        f"Merhaba,\n\n{NAME} için T.C. Kimlik No {NATIONAL_ID} ve IBAN {IBAN} bilgileri ektedir.\n\n"
        "Saygılarımızla,\nDeniz Yıldırım"
    )
    item = msgforge.Message(
        subject="Personel bilgileri (gizli)",
        text_body=body,
        html_body="<p>" + body.replace("\n\n", "</p><p>").replace("\n", "<br>") + "</p>",
        to=[("ik@ornekgida.com.tr", "İnsan Kaynakları")],
        cc=[("muhasebe@ornekgida.com.tr", "Muhasebe")],
        sender=("deniz.yildirim@ornekgida.com.tr", "Deniz Yıldırım"),
        sent=sent,
    )
    item.attach(letter_path, filename="tr_personel_formu.docx")
    item.save(os.path.join(HERE, "tr_personel_eposta.msg"))
    html_only = msgforge.Message(
        subject="Ödeme talimatı",
        html_body=f"<h1>Ödeme talimatı</h1><p>Alıcı: {NAME}</p><table><tr><td>IBAN</td><td>{IBAN}</td></tr>"
        f"<tr><td>T.C. Kimlik No</td><td>{NATIONAL_ID}</td></tr></table>",
        to=[("finans@ornekgida.com.tr", "Finans")],
        sender=("deniz.yildirim@ornekgida.com.tr", "Deniz Yıldırım"),
        sent=sent,
    )
    html_only.save(os.path.join(HERE, "tr_odeme_talimati.msg"))


def mbox_of_two():
    """Two messages in mbox form (mboxrd), the second quoting a "From " line."""
    path = os.path.join(HERE, "tr_yazisma.mbox")
    if os.path.exists(path):
        os.remove(path)
    box = mailbox.mbox(path)
    for index, (subject, text) in enumerate([
        ("Kimlik bilgisi", f"Merhaba,\n{NAME} T.C. Kimlik No: {NATIONAL_ID}\nİyi çalışmalar."),
        ("Hesap bilgisi", f"Merhaba,\nFrom now on the IBAN is {IBAN}.\nTeşekkürler."),
    ]):
        message = EmailMessage()
        message["From"] = "Deniz Yıldırım <deniz.yildirim@ornekgida.com.tr>"
        message["To"] = "ik@ornekgida.com.tr"
        message["Subject"] = subject
        message["Date"] = f"Wed, 0{index + 4} Mar 2026 09:30:00 +0300"
        message.set_content(text)
        box.add(message)
    box.flush()
    box.close()


def soffice_convert(path, target_format, work):
    """LibreOffice's own reading of `path`, converted to `target_format` in `work`; the file written."""
    subprocess.run(
        ["soffice", "--headless", f"-env:UserInstallation=file://{work}/profile", "--convert-to",
         target_format, "--outdir", work, path],
        check=True, capture_output=True,
    )
    stem = os.path.splitext(os.path.basename(path))[0]
    extension = target_format.split(":")[0]
    return os.path.join(work, f"{stem}.{extension}")


def references():
    """`<file>.reference.txt` beside each document: the text a reader other than docsieve finds in it
    (LibreOffice's text export for Word, RTF and OpenDocument text, its PDF export read by pdftotext
    for slides, its CSV export for sheets, python-docx for the EPUB written from the letter,
    extract-msg for Outlook items, Python's mailbox for the mbox), for the word-recall check."""
    import extract_msg

    work = tempfile.mkdtemp(prefix="office-references-")
    for name in sorted(os.listdir(HERE)):
        path = os.path.join(HERE, name)
        extension = os.path.splitext(name)[1]
        if name.endswith((".json", ".txt")) or "_sifreli" in name or extension in (".docx", ".pptx", ".xlsx"):
            continue
        if extension in (".doc", ".odt", ".rtf"):
            with open(soffice_convert(path, "txt:Text (encoded):UTF8", work), encoding="utf-8-sig") as text:
                reference = text.read()
        elif extension in (".ppt", ".odp"):
            pdf = soffice_convert(path, "pdf", work)
            reference = subprocess.run(["pdftotext", "-q", pdf, "-"], capture_output=True, check=True).stdout.decode()
        elif extension in (".ods", ".xls"):
            with open(soffice_convert(path, "csv:Text - txt - csv (StarCalc):44,34,76", work), encoding="utf-8") as text:
                reference = text.read()
        elif extension == ".epub":
            letter = docx.Document(os.path.join(HERE, "tr_personel_formu.docx"))
            parts = [p.text for p in letter.paragraphs]
            parts += [cell.text for table in letter.tables for row in table.rows for cell in row.cells]
            reference = "\n".join(parts)
        elif extension == ".msg":
            item = extract_msg.openMsg(path)
            reference = "\n".join(str(v or "") for v in (item.sender, item.to, item.cc, item.subject))
            if item.htmlBody:
                import lxml.html
                html = item.htmlBody.decode("utf-8") if isinstance(item.htmlBody, bytes) else item.htmlBody
                reference += "\n" + " ".join(lxml.html.fromstring(html).itertext())
            else:
                reference += "\n" + (item.body or "")
        elif extension == ".mbox":
            import email
            import email.policy
            parts = []
            box = mailbox.mbox(path, factory=lambda f: email.message_from_binary_file(f, policy=email.policy.default))
            for message in box:
                parts += [str(message[h] or "") for h in ("from", "to", "subject")]
                parts.append(message.get_content())
            reference = "\n".join(parts)
        else:
            continue
        with open(path + ".reference.txt", "w", encoding="utf-8") as out:
            out.write(reference)
        print("reference", name)


def main():
    if "--references" in __import__("sys").argv:
        references()
        return
    os.makedirs(HERE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="office-sources-")
    sources = {
        "letter": os.path.join(work, "tr_personel_formu.docx"),
        "deck": os.path.join(work, "tr_musteri_sunumu.pptx"),
        "book": os.path.join(work, "tr_musteri_tablosu.xlsx"),
    }
    letter(sources["letter"])
    presentation(sources["deck"])
    workbook(sources["book"])
    out = lambda name: os.path.join(HERE, name)  # noqa: E731
    jobs = [
        (sources["letter"], out("tr_personel_formu.doc"), "MS Word 97", None),
        (sources["letter"], out("tr_personel_formu.odt"), "writer8", None),
        (sources["letter"], out("tr_personel_formu.rtf"), "Rich Text Format", None),
        (sources["letter"], out("tr_personel_formu.epub"), "EPUB", None),
        (sources["letter"], out("tr_personel_formu_sifreli.doc"), "MS Word 97", "gizli-parola"),
        (sources["letter"], out("tr_personel_formu_sifreli.odt"), "writer8", "gizli-parola"),
        (sources["deck"], out("tr_musteri_sunumu.ppt"), "MS PowerPoint 97", None),
        (sources["deck"], out("tr_musteri_sunumu.odp"), "impress8", None),
        (sources["book"], out("tr_musteri_tablosu.ods"), "calc8", None),
        (sources["book"], out("tr_musteri_tablosu.xls"), "MS Excel 97", None),
        (sources["book"], out("tr_musteri_tablosu_sifreli.ods"), "calc8", "gizli-parola"),
    ]
    listed = os.path.join(work, "jobs.json")
    with open(listed, "w", encoding="utf-8") as jobs_file:
        json.dump(jobs, jobs_file)
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(HERE), "uno_convert.py"), listed], check=True)
    for _, target, _, password in jobs:
        if password is None:
            with open(target + ".pii.json", "w", encoding="utf-8") as sidecar:
                json.dump({"document": os.path.basename(target), "generator": "tests/documents/make_office.py",
                           "language": "tr", "pii": PLANTED}, sidecar, ensure_ascii=False, indent=1)
    outlook_items(sources["letter"])
    mbox_of_two()
    for name in ("tr_personel_eposta.msg", "tr_odeme_talimati.msg", "tr_yazisma.mbox"):
        with open(out(name) + ".pii.json", "w", encoding="utf-8") as sidecar:
            json.dump({"document": name, "generator": "tests/documents/make_office.py",
                       "language": "tr", "pii": PLANTED}, sidecar, ensure_ascii=False, indent=1)
    # The sources too: the reference readers (python-docx, python-pptx) read them for the word recall.
    for name, path in sources.items():
        with open(path, "rb") as source, open(out(os.path.basename(path)), "wb") as copy:
            copy.write(source.read())
    references()


if __name__ == "__main__":
    main()
