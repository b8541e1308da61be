#!/usr/bin/env python3
"""Makes the scanned-page PDFs of tests/documents (see SOURCES.md there): one page of Turkish text
with no text layer, written three ways a PDF reader meets in the wild.

  scanned_jpx_tr.pdf    the page as a JPEG 2000 image (/JPXDecode)
  scanned_ccitt_tr.pdf  the page as a 1-bit CCITT Group 4 image (/CCITTFaxDecode)
  drawn_text_tr.pdf     two pages: the first with an ordinary text layer (Helvetica), the second with
                        the words drawn as vector outlines (paths), no font and no image

Needs Pillow (with OpenJPEG and libtiff, as its wheels have), img2pdf and fontTools, and the DejaVu Sans
font (Debian fonts-dejavu-core). Run from the repository root: python3 tests/documents/make_scanned.py
"""
import io
import os
import zlib

import img2pdf
from fontTools.pens.basePen import BasePen
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
HERE = os.path.dirname(os.path.abspath(__file__))


def tckn(first_nine: str) -> str:
    """A T.C. Kimlik No from its first nine digits (the spec's two check digits)."""
    d = [int(c) for c in first_nine]
    d10 = (7 * sum(d[0:9:2]) - sum(d[1:8:2])) % 10
    d11 = (sum(d) + d10) % 10
    return first_nine + str(d10) + str(d11)


LINES = [
    "Sayın Müşterimiz Gülşen Çakıroğlu,",
    "başvurunuz öğleden sonra işleme alınmıştır.",
    f"T.C. Kimlik No: {tckn('318273645')}",
    "Ödeme günü çarşamba, şube Ilıca Çiğdem Sokağı.",
]
# The first page of drawn_text_tr.pdf: a text layer, which must stay text (not OCR).
TEXT_PAGE = "BT /F1 14 Tf 22 170 Td (Ek 1: musteri dilekcesi, ikinci sayfada taranmis metin.) Tj ET"
DPI = 200
WIDTH_IN, HEIGHT_IN = 6.0, 3.0


def page_image() -> Image.Image:
    image = Image.new("L", (int(WIDTH_IN * DPI), int(HEIGHT_IN * DPI)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 34)
    for number, line in enumerate(LINES):
        draw.text((60, 60 + number * 110), line, font=font, fill=0)
    return image


def image_pdf(encoded: bytes) -> bytes:
    layout = img2pdf.get_fixed_dpi_layout_fun((DPI, DPI))
    return img2pdf.convert(encoded, layout_fun=layout)


def jpx_pdf() -> bytes:
    out = io.BytesIO()
    page_image().save(out, format="JPEG2000", quality_mode="rates", quality_layers=[20])
    return image_pdf(out.getvalue())


def ccitt_pdf() -> bytes:
    out = io.BytesIO()
    page_image().point(lambda v: 255 if v > 128 else 0).convert("1").save(
        out, format="TIFF", compression="group4", dpi=(DPI, DPI)
    )
    return image_pdf(out.getvalue())


class PdfPathPen(BasePen):
    """Glyph outlines as PDF path operators, in font units moved and scaled to the page."""

    def __init__(self, glyphs, scale, x, y):
        super().__init__(glyphs)
        self.ops, self.scale, self.x, self.y = [], scale, x, y

    def _pt(self, p):
        return f"{self.x + p[0] * self.scale:.2f} {self.y + p[1] * self.scale:.2f}"

    def _moveTo(self, p):
        self.ops.append(f"{self._pt(p)} m")

    def _lineTo(self, p):
        self.ops.append(f"{self._pt(p)} l")

    def _curveToOne(self, a, b, c):
        self.ops.append(f"{self._pt(a)} {self._pt(b)} {self._pt(c)} c")

    def _closePath(self):
        self.ops.append("h")


def drawn_pdf() -> bytes:
    font = TTFont(FONT)
    glyphs, cmap = font.getGlyphSet(), font.getBestCmap()
    widths = font["hmtx"].metrics
    size = 13.0
    scale = size / font["head"].unitsPerEm
    page_w, page_h = WIDTH_IN * 72, HEIGHT_IN * 72
    ops = ["0 g"]
    for number, line in enumerate(LINES):
        x, y = 22.0, page_h - 40 - number * 40
        for char in line:
            name = cmap.get(ord(char), ".notdef")
            pen = PdfPathPen(glyphs, scale, x, y)
            glyphs[name].draw(pen)
            if pen.ops:
                ops.extend(pen.ops)
                ops.append("f")
            x += widths[name][0] * scale
    drawn = zlib.compress("\n".join(ops).encode())
    text = TEXT_PAGE.encode()
    media = f"/MediaBox [0 0 {page_w:.0f} {page_h:.0f}]"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>",
        f"<< /Type /Page /Parent 2 0 R {media} /Resources << /Font << /F1 7 0 R >> >> "
        "/Contents 4 0 R >>".encode(),
        f"<< /Length {len(text)} >>\nstream\n".encode() + text + b"\nendstream",
        f"<< /Type /Page /Parent 2 0 R {media} /Resources << >> /Contents 6 0 R >>".encode(),
        f"<< /Length {len(drawn)} /Filter /FlateDecode >>\nstream\n".encode()
        + drawn
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


if __name__ == "__main__":
    for name, make in [
        ("scanned_jpx_tr.pdf", jpx_pdf),
        ("scanned_ccitt_tr.pdf", ccitt_pdf),
        ("drawn_text_tr.pdf", drawn_pdf),
    ]:
        data = make()
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(name, len(data), "bytes")
