"""Small real PDFs written byte by byte: N pages with a line of text each, cross-referenced.

`classic` writes every object at top level with an `xref` table (PDF 1.4); `packed` puts
the catalog, the page tree and the pages in a Flate object stream, indexed by an xref
stream (PDF 1.5), as most writers do today. `padding` adds an uncompressed stream of
that many bytes (a stand-in for an embedded font or image) to make the file large.
"""

from __future__ import annotations

import struct
import zlib


def _objects(pages: int, padding: int) -> list[bytes]:
    """Catalog (1), page tree (2), font (3), then each page and its content stream."""
    first_page = 4
    kids = b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(pages))
    out = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i in range(pages):
        content = b"BT /F1 12 Tf 72 720 Td (Page %d of the test document.) Tj ET" % (i + 1)
        out.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
            b"<< /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (first_page + 2 * i + 1)
        )
        out.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    if padding:
        blob = bytes(range(256)) * (padding // 256 + 1)
        out.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (padding, blob[:padding]))
    return out


def classic(pages: int, *, padding: int = 0) -> bytes:
    """A PDF 1.4 file of `pages` pages with an xref table."""
    objects = _objects(pages, padding)
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def packed(pages: int, *, predictor: bool = False) -> bytes:
    """A PDF 1.5 file whose dictionaries sit in one Flate object stream (content streams
    stay at top level: streams cannot be packed). `predictor` declares a PNG predictor
    on the object stream, which the page reader does not undo."""
    objects = _objects(pages, 0)
    packable = [n for n, body in enumerate(objects, 1) if b"stream" not in body]
    loose = [n for n, body in enumerate(objects, 1) if b"stream" in body]
    header, bodies = [], bytearray()
    for n in packable:
        header.append(b"%d %d" % (n, len(bodies)))
        bodies += objects[n - 1] + b"\n"
    head = b" ".join(header) + b"\n"
    data = zlib.compress(head + bytes(bodies))
    stream_no = len(objects) + 1
    xref_no = len(objects) + 2
    parms = b" /DecodeParms << /Predictor 12 /Columns 4 >>" if predictor else b""
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}
    for n in loose:
        offsets[n] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (n, objects[n - 1])
    offsets[stream_no] = len(out)
    out += b"%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode%s /Length %d >>\n" % (
        stream_no,
        len(packable),
        len(head),
        parms,
        len(data),
    )
    out += b"stream\n" + data + b"\nendstream\nendobj\n"
    offsets[xref_no] = len(out)
    rows = [struct.pack(">BIH", 0, 0, 65535)]
    for n in range(1, xref_no + 1):
        if n in offsets:
            rows.append(struct.pack(">BIH", 1, offsets[n], 0))
        else:
            rows.append(struct.pack(">BIH", 2, stream_no, packable.index(n)))
    table = zlib.compress(b"".join(rows))
    out += b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode " % (
        xref_no,
        xref_no + 1,
    )
    out += b"/Length %d >>\nstream\n%s\nendstream\nendobj\n" % (len(table), table)
    out += b"startxref\n%d\n%%%%EOF\n" % offsets[xref_no]
    return bytes(out)
