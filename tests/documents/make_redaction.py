#!/usr/bin/env python3
"""Makes the documents of tests/documents/redaction: a DOCX, an XLSX and a PPTX with invented personal
data planted in every place the masked-files writers rewrite (body, split runs, tables, headers and
footers, footnotes, text boxes, comments and their authors, tracked changes, hyperlink targets, alt
text, core, app and custom properties, shared and inline strings, numeric cells, formulas' cached
values, sheet headers, slide notes), each with a `.pii.json` naming the planted values (`value`) and
the metadata that names a person (`metadata`).

Needs python-docx (>= 1.2, for comments), openpyxl, python-pptx and LibreOffice (soffice). Run from the repository root:
    python3 tests/documents/make_redaction.py
Never run by the tests or CI: the files it writes are committed.
"""
import copy
import io
import json
import os
import zipfile

import docx
import openpyxl
import pptx
from docx.oxml.ns import qn
from docx.shared import Pt
from openpyxl.comments import Comment
from pptx.util import Inches

OUT = os.path.join(os.path.dirname(__file__), "redaction")

# Valid by their check digits (the spec's test vectors and invented ones).
TCKN = "10000000146"
TCKN2 = "17291716060"
IBAN = "TR33 0006 1005 1978 6457 8413 26"
EMAIL = "ayse.yilmaz@ornekfirma.com.tr"
EMAIL2 = "mehmet.demir@ornekfirma.com.tr"
PHONE = "0532 123 45 67"
NAME = "Ayşe Yılmaz"
NAME2 = "Mehmet Demir"
AUTHOR = "Zeynep Kaya"
EDITOR = "Burak Şahin"

PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478"
    "9c63f8ffff3f0005fe02fe0def46b80000000049454e44ae426082"
)


def sidecar(path, values, metadata):
    with open(path + ".pii.json", "w", encoding="utf-8") as out:
        json.dump({"pii": [{"value": v} for v in values], "metadata": metadata}, out,
                  ensure_ascii=False, indent=1)


def rezip(path, edit):
    """Rewrites a package with `edit(name, bytes) -> bytes` applied to each part."""
    with zipfile.ZipFile(path) as source:
        parts = [(info, source.read(info.filename)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in parts:
            is_markup = info.filename.endswith((".xml", ".rels"))
            target.writestr(info, edit(info.filename, data) if is_markup else data)


def make_docx():
    document = docx.Document()
    document.core_properties.author = AUTHOR
    document.core_properties.last_modified_by = EDITOR
    document.core_properties.title = f"Personel kaydı: {NAME}"
    document.add_heading("Personel Bilgi Formu", 1)
    # A name split over three runs, each with its own formatting.
    paragraph = document.add_paragraph("Sayın ")
    paragraph.add_run("Ay").bold = True
    paragraph.add_run("şe Yıl").italic = True
    run = paragraph.add_run("maz, kaydınız tamamlandı.")
    run.font.size = Pt(13)
    document.add_paragraph(f"T.C. Kimlik No: {TCKN}")
    document.add_paragraph(f"IBAN: {IBAN}")
    styled = document.add_paragraph("Bu satırda kişisel veri yok; biçimi aynen kalmalı.")
    styled.runs[0].bold = True
    table = document.add_table(rows=2, cols=3)
    for cell, text in zip(table.rows[0].cells, ["Ad Soyad", "Telefon", "E-posta"]):
        cell.text = text
    for cell, text in zip(table.rows[1].cells, [NAME2, PHONE, EMAIL2]):
        cell.text = text
    comment_anchor = document.add_paragraph("Onaylayan birim: İnsan Kaynakları")
    document.add_comment(comment_anchor.runs, text=f"Kontrol edildi, TC {TCKN2}",
                         author=AUTHOR, initials="ZK")
    section = document.sections[0]
    section.header.paragraphs[0].text = f"Hazırlayan: {NAME} - {EMAIL}"
    section.footer.paragraphs[0].text = f"Telefon: {PHONE}"
    document.add_picture(io.BytesIO(PNG_1X1))
    path = os.path.join(OUT, "planted.docx")
    document.save(path)

    def edit(name, data):
        text = data.decode("utf-8")
        if name == "word/document.xml":
            # A mailto hyperlink, a tracked deletion and insertion, a text box, alt text.
            body_end = text.rindex("<w:sectPr")
            extra = (
                '<w:p><w:r><w:t xml:space="preserve">İletişim: </w:t></w:r>'
                '<w:hyperlink r:id="rIdMail"><w:r><w:t>yazın</w:t></w:r></w:hyperlink></w:p>'
                '<w:p><w:del w:id="901" w:author="' + EDITOR + '" w:date="2026-01-01T00:00:00Z">'
                '<w:r><w:delText xml:space="preserve">Eski numara: ' + PHONE + '</w:delText></w:r></w:del>'
                '<w:ins w:id="902" w:author="' + EDITOR + '" w:date="2026-01-01T00:00:00Z">'
                '<w:r><w:t>Numara değişti.</w:t></w:r></w:ins></w:p>'
                '<w:p><w:r><w:t xml:space="preserve">Dipnot</w:t></w:r>'
                '<w:r><w:footnoteReference w:id="1"/></w:r></w:p>'
                '<w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
                '<mc:Choice xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" Requires="wps">'
                '<w:drawing><wp:anchor xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
                'distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="1" behindDoc="0" locked="0" '
                'layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/>'
                '<wp:positionH relativeFrom="column"><wp:posOffset>0</wp:posOffset></wp:positionH>'
                '<wp:positionV relativeFrom="paragraph"><wp:posOffset>0</wp:posOffset></wp:positionV>'
                '<wp:extent cx="2000000" cy="500000"/><wp:wrapNone/>'
                '<wp:docPr id="77" name="Metin Kutusu" descr="Kutu: ' + NAME2 + '"/>'
                '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
                '<a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
                '<wps:wsp><wps:cNvSpPr txBox="1"/><wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="2000000" cy="500000"/></a:xfrm>'
                '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></wps:spPr>'
                '<wps:txbx><w:txbxContent><w:p><w:r><w:t xml:space="preserve">Kutu: IBAN ' + IBAN + '</w:t></w:r></w:p>'
                '</w:txbxContent></wps:txbx><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing>'
                '</mc:Choice><mc:Fallback/></mc:AlternateContent></w:r></w:p>'
            )
            text = text[:body_end] + extra + text[body_end:]
            # The picture's alt text names a person.
            text = text.replace('descr=""', 'descr="Fotoğraf: ' + NAME + '"', 1)
            if 'descr="Fotoğraf' not in text:
                text = text.replace('<wp:docPr id="', '<wp:docPr descr="Fotoğraf: ' + NAME + '" id="', 1)
        elif name == "word/_rels/document.xml.rels":
            text = text.replace(
                "</Relationships>",
                '<Relationship Id="rIdMail" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                'relationships/hyperlink" Target="mailto:' + EMAIL + '" TargetMode="External"/>'
                '<Relationship Id="rIdNotes" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                'relationships/footnotes" Target="footnotes.xml"/></Relationships>')
        elif name == "[Content_Types].xml":
            text = text.replace(
                "</Types>",
                '<Override PartName="/word/footnotes.xml" ContentType="application/'
                'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/>'
                '<Override PartName="/docProps/custom.xml" ContentType="application/'
                'vnd.openxmlformats-officedocument.custom-properties+xml"/></Types>')
        elif name == "_rels/.rels":
            text = text.replace(
                "</Relationships>",
                '<Relationship Id="rIdCustom" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                'relationships/custom-properties" Target="docProps/custom.xml"/></Relationships>')
        elif name == "docProps/app.xml" and "<Company" not in text:
            text = text.replace("</Properties>", "<Manager>" + EDITOR + "</Manager><Company>Örnek Firma A.Ş.</Company></Properties>")
        return text.encode("utf-8")

    rezip(path, edit)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as package:
        w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
        package.writestr(
            "word/footnotes.xml",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<w:footnotes {w}>'
            '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
            '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>'
            '<w:footnote w:id="1"><w:p><w:r><w:t xml:space="preserve">Kaynak: müşteri '
            + TCKN2 + ' kaydı</w:t></w:r></w:p></w:footnote></w:footnotes>')
        package.writestr(
            "docProps/custom.xml",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" '
            'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">'
            '<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="Onaylayan">'
            '<vt:lpwstr>' + NAME2 + '</vt:lpwstr></property></Properties>')
    sidecar(path, [NAME, NAME2, TCKN, TCKN2, IBAN, IBAN.replace(" ", ""), EMAIL, EMAIL2, PHONE],
            [AUTHOR, EDITOR])


def make_xlsx():
    book = openpyxl.Workbook()
    book.properties.creator = AUTHOR
    book.properties.lastModifiedBy = EDITOR
    sheet = book.active
    sheet.title = "Müşteriler"
    sheet.append(["Ad Soyad", "TC Kimlik No", "Telefon", "E-posta", "IBAN", "Tutar"])
    sheet.append([NAME, int(TCKN), PHONE, EMAIL, IBAN, 1250.5])
    sheet.append([NAME2, TCKN2, "0533 765 43 21", EMAIL2, "TR32 0010 0099 9999 9999 9999 97", 300])
    sheet.append(["Toplam", None, None, None, None, "=SUM(F2:F3)"])
    sheet["A2"].comment = Comment(f"Müşteri temsilcisi: {NAME2}, tel {PHONE}", AUTHOR)
    sheet["D2"].hyperlink = f"mailto:{EMAIL}"
    sheet.oddHeader.center.text = f"Hazırlayan {NAME}"
    second = book.create_sheet("Notlar")
    second["A1"] = "Bu sayfada kişisel veri yok."
    second["B2"] = 42
    path = os.path.join(OUT, "planted.xlsx")
    book.save(path)

    def edit(name, data):
        text = data.decode("utf-8")
        if name == "xl/worksheets/sheet1.xml":
            # The formula's cached value, and an inline string cell after the last row.
            text = text.replace("<f>SUM(F2:F3)</f><v></v>", "<f>SUM(F2:F3)</f><v>1550.5</v>")
            row = ('<row r="6"><c r="A6" t="inlineStr"><is><t>Yedek iletişim: '
                   + EMAIL2 + '</t></is></c></row>')
            last = text.rindex("</row>") + len("</row>")
            text = text[:last] + row + text[last:]
        return text.encode("utf-8")

    rezip(path, edit)
    sidecar(path, [NAME, NAME2, TCKN, TCKN2, IBAN, EMAIL, EMAIL2, PHONE, "0533 765 43 21"],
            [AUTHOR, EDITOR])


def make_pptx():
    deck = pptx.Presentation()
    deck.core_properties.author = AUTHOR
    deck.core_properties.last_modified_by = EDITOR
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Müşteri Sunumu"
    body = slide.placeholders[1].text_frame
    body.text = "Sorumlu: "
    paragraph = body.paragraphs[0]
    run = paragraph.add_run()
    run.text = "Ayşe "
    run.font.bold = True
    run = paragraph.add_run()
    run.text = "Yılmaz"
    run.font.italic = True
    body.add_paragraph().text = f"Telefon: {PHONE}"
    body.add_paragraph().text = "Bu paragrafta kişisel veri yok."
    slide.notes_slide.notes_text_frame.text = f"Konuşmacı notu: {NAME2} ile görüş, TC {TCKN}"
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Ödeme"
    rows = second.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    rows.cell(0, 0).text = "IBAN"
    rows.cell(0, 1).text = "E-posta"
    rows.cell(1, 0).text = IBAN
    rows.cell(1, 1).text = EMAIL
    picture = second.shapes.add_picture(io.BytesIO(PNG_1X1), Inches(1), Inches(4), Inches(1), Inches(1))
    picture._element.nvPicPr.cNvPr.set("descr", f"Fotoğraf: {NAME}")
    path = os.path.join(OUT, "planted.pptx")
    deck.save(path)
    sidecar(path, [NAME, NAME2, TCKN, IBAN, EMAIL, PHONE], [AUTHOR, EDITOR])


def make_opendocument():
    """planted.odt and planted.odp: LibreOffice's conversions of the DOCX and the PPTX (the same
    values; LibreOffice keeps the authors as the documents' creators)."""
    import shutil
    import subprocess
    import tempfile
    soffice = shutil.which("soffice")
    with tempfile.TemporaryDirectory() as profile:
        for source, target in (("planted.docx", "odt"), ("planted.pptx", "odp")):
            subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless",
                            "--convert-to", target, "--outdir", OUT, os.path.join(OUT, source)],
                           check=True, capture_output=True)
            shutil.copy(os.path.join(OUT, source + ".pii.json"),
                        os.path.join(OUT, source.replace(".docx", ".odt").replace(".pptx", ".odp") + ".pii.json"))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    make_docx()
    make_xlsx()
    make_pptx()
    make_opendocument()
