"""Rule cues in Spanish, German, French, Japanese and Chinese (read after the English ones).

Rules:
1. Precision before recall, as in English (`_cues` rule 1): a cue matches the forms that
   only a rule takes, an imperative or a modal at the start of the sentence ("Nunca uses
   print", "Ändere niemals die API", "Ne modifie jamais", "触らないでください", "不要修改"),
   never a first or third person that narrates ("Ich habe das nie gesagt", "No tengo
   tiempo", "Je ne sais pas", "It doesn't work": "Funktioniert nicht").
2. Each cue names its gate words like an English one (`_cue_table` rule 3); a cue for a
   script without spaces (Japanese, Chinese) needs the word CJK, which `_cues.words_of`
   gives every text holding a character of those scripts.
"""

from __future__ import annotations

from typing import Final, Literal

from ._facts import word_set

CJK: Final = "cjk"
"""The gate word of a text with a Han, Hiragana or Katakana character (rule 2)."""
CJK_CHARS: Final = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]"

_ES_PLEASE: Final = r"^(?:por favor,?\s+|porfa,?\s+|y\s+|tambi[ée]n,?\s+|importante:\s+)*"
_DE_PLEASE: Final = r"^(?:bitte\s+|und\s+|auch\s+|wichtig:\s+)*"
_FR_PLEASE: Final = r"^(?:s'il (?:te|vous) pla[îi]t,?\s+|et\s+|aussi,?\s+|important\s*:\s+)*"
_SPANISH: Final = (
    r"(?=(?:\s+\S+){0,6}?\s+(?:la|el|los|las|nada|ningún|ninguna|ninguno|para|con|por|en|de|"
    r"del|al|mi|tu|su|sus|tus|que|esto|eso|esta|este)\b)(?!.*\b(?:the|to|of|and|is|are|it|on|"
    r"with|for|any|my|your)\b)"
)
"""A Spanish word soon after, and no English one: "No toques la base de datos", never "No
changes to the API" or "No worries"."""
_DE_NOT: Final = r"(?:niemals|nie|nicht|kein|keine|keinen|keinem)"
_DE_NOT_IMPERATIVE: Final = (
    r"(?!(?:ich|du|er|sie|es|wir|ihr|man|das|der|die|dies|dieser|diese|es|hier|da|dann|"
    r"jetzt|leider|noch|auch|aber|und|so|was|wer|wie|warum|ist|war|bin|sind|hat|habe|"
    r"haben|kann|geht|klappt)\b)[a-zäöüß]+(?<!t)"
)
"""A German imperative's verb (du form): not a pronoun, article or adverb, and not a verb
in the third person ("funktioniert nicht" narrates)."""

FOREIGN_CUES: Final[
    tuple[tuple[Literal["prohibition", "obligation"], frozenset[str], str], ...]
] = (
    (
        "prohibition",
        word_set("nunca jam no prohibido"),
        _ES_PLEASE + r"(?:nunca|jam[aá]s|no (?!(?:te|se|lo|la|s[eé]|hay|tengo|tenemos|puedo|"
        r"podemos|pasa|importa|gracias|era|fue|es|est[aá]|estaba|creo|quiero|s[ií])\b)"
        r"[a-záéíóúñ]+(?:es|as)\b" + _SPANISH + r")\s|\best[aá] prohibido\b",
    ),
    (
        "obligation",
        word_set("siempre debes tienes hay aseg"),
        _ES_PLEASE + r"(?:siempre\s+[a-záéíóúñ]+|debes\s|tienes que\s|hay que\s|"
        r"aseg[úu]rate de\s)",
    ),
    (
        "prohibition",
        word_set("niemals nie nicht kein keine keinen keinem darfst rfen rft"),
        _DE_PLEASE + _DE_NOT_IMPERATIVE + r"\s+(?:(?:die|den|das|der)\s+\S+\s+)?"
        rf"{_DE_NOT}\b|\b(?:du|sie|ihr) (?:darfst|dürfen|dürft) (?:\S+ )*?{_DE_NOT}\b|"
        r"^auf keinen fall\b",
    ),
    (
        "obligation",
        word_set("immer stets unbedingt musst ssen sst"),
        _DE_PLEASE + _DE_NOT_IMPERATIVE + r"\s+(?:immer|stets|unbedingt)\b|"
        r"\b(?:du musst|sie müssen|ihr müsst)\b",
    ),
    (
        "prohibition",
        word_set("ne jamais pas plus faut"),
        _FR_PLEASE + r"(?:ne\s+\S+|n'\S+)\s+(?:jamais|pas|plus)\b|^il ne faut (?:jamais|pas)\b",
    ),
    (
        "obligation",
        word_set("toujours faut dois devez assure veille"),
        _FR_PLEASE + r"(?:toujours\b|il faut\b|tu dois\b|vous devez\b|assure-toi\b|"
        r"veille à\b|(?!c'|je |il |elle |on |nous |ils |elles |ce |ça )\S+ toujours\b)",
    ),
    (
        "prohibition",
        frozenset({CJK}),
        r"(?:ないで(?:ください|下さい|ね|ほしい|[。！!]|$)|てはいけ(?:ない|ません)|ては(?:だめ|駄目|ダメ)|"
        r"禁止|(?:^|[，,、。\s]|请)(?:不要|别(?![的人处])|不准|不许|千万不要|绝对不要|请勿|勿))",
    ),
    (
        "obligation",
        frozenset({CJK}),
        r"(?:(?:必ず|常に|いつも).{0,40}?(?:ください|下さい|こと)|なければ(?:ならない|なりません|"
        r"いけない|いけません)|ようにして(?:ください|下さい)|必须|一定要|务必|務必)",
    ),
)
"""Cues tried after the English ones, in order (`_cue_table.CUES`)."""
