"""What an inline document costs: a PDF by its pages, a text document by its text.

Rules:
1. Anthropic and OpenAI both put each page of a PDF into the model's context twice: the
   text extracted from it, and an image of the page (Anthropic's PDF guide: "the system
   converts each page of the document into an image ... the text from each page is
   extracted and provided alongside each page's image"; OpenAI's file-inputs guide: "both
   the extracted text and an image of each page"). The base64 text of the file is never
   sent to the model, so its length says nothing about the cost.
2. A page costs PAGE_TEXT tokens of text (scaled like all text: Anthropic's 1.25) plus
   one image of unknown size under the model's image rule, which is that rule's maximum
   (`_images` rule 4): 1,600 for Claude, 1,445 for gpt-4o, 48,169 for gpt-4o-mini, whose
   image tokens are priced 33 times as many. So a Claude page counts 4,100 tokens and a
   gpt-4o page 3,445. Anthropic's guide puts a page at typically 1,500-3,000 tokens; the
   figure stays above its top because a typical page is not a bound: PAGE_TEXT is a dense
   page of about 8,000 characters at 4 a token (small print, two columns), where the
   guide's range leaves about 1,400 tokens of text beside a full-size page image.
3. The count is the pages times that figure, with no cap from the base64 length: a page's
   image costs the same whatever its bytes, so a small file of many plain pages costs far
   more than its base64 text would count (100 pages of a line each fit in 29 kB, about
   25,000 tokens as base64 text), and capping at that length would under-count it. A page
   with more text than PAGE_TEXT, or a model that renders pages larger than its image
   rule says, can still cost more: CalibratedCounter learns that bias from reported usage.
4. When the pages cannot be read (`_pdf` rule 4: not a PDF, an object stream not read here,
   malformed base64) the document costs its JSON text, as every unknown part does: the
   count is what it was before pages were read.
5. A text document costs its text; the rest of the part (title, context, filename, media
   type) costs its JSON text with the content left out, for PDFs as well.
6. Documents sent by reference are not inline (`_adapters._references`): no formula can
   read them, so they cost their JSON text and the report says they are not counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from .._adapters._documents import InlineDocument
from ._images import ImageRule, image_tokens
from ._pdf import pdf_pages

__all__ = ["PAGE_TEXT", "content_tokens", "page_tokens"]

PAGE_TEXT: Final = 2_000
"""Tokens of extracted text counted per page, before the text scale (rule 2)."""


def page_tokens(images: ImageRule, text_scale: float) -> int:
    """What one PDF page is counted (rule 2)."""
    return math.ceil(PAGE_TEXT * text_scale) + image_tokens(images, None)


def content_tokens(
    document: InlineDocument, count_text: Callable[[str], int], per_page: int
) -> int | None:
    """Tokens of a document's content, its framing aside (rule 5); None when a PDF's pages
    cannot be read (rule 4)."""
    if document.kind == "text":
        return count_text(document.data)
    pages = pdf_pages(document.data)
    return None if pages is None else pages * per_page
