"""The rules of PostgreSQL's default text-search parser, as data.

Facts from PostgreSQL 15's ``src/backend/tsearch/wparser_def.c`` (the parser is a state
machine with a stack of saved positions), written down in a notation of this project:
one block per state, one rule per line, tried in order; the first whose test holds
fires. A rule is ``TEST ACTIONS [-> STATE] [=TOKEN] [!SPECIAL]``:

* tests: ``eof``, ``'c'`` (that ASCII character), ``asclet`` (ASCII letter), ``alpha``,
  ``digit``, ``alnum``, ``notalnum``, ``special`` (see :mod:`.chars`), ``space``,
  ``xdigit``, ``urlchar``, ``ignore`` (inside ``<script>``/``<style>``), ``stophost``
  (a host wanted by an URL, consumed when tested), ``host``/``urlpath`` (a nested parse
  finds a host / an URL path here), ``*`` (always);
* actions: ``next`` (consume the character), ``push`` (save the position, to come back
  to the next rule if the attempt fails), ``pop`` (fail: back to the saved position),
  ``clear`` (forget the last saved position), ``clrall`` (forget them all), ``merge``
  (keep this position in the saved one), ``rerun`` (test again without consuming),
  ``bingo`` (emit the token so far);
* specials: ``tags`` (``<script>``/``<style>`` switch ``ignore``), ``hyphen`` (rewind to
  re-read a hyphenated word as its parts), ``furl`` (rewind an URL to re-read it as
  host and path), ``verversion`` (rewind ``-1.2.3`` to read the sign apart).

:mod:`.parser` runs them; this module only holds and compiles the rules.
"""

from __future__ import annotations

RULES = """
Base
  eof next
  '<' push -> TagFirst
  ignore next -> Space
  asclet next -> AsciiWord
  alpha next -> Word
  digit next -> UnsignedInt
  '-' push -> SignedIntFirst
  '+' push -> SignedIntFirst
  '&' push -> XMLEntityFirst
  '~' push -> FileTwiddle
  '/' push -> FileFirst
  '.' push -> PathFirstFirst
  * next -> Space

NumWord
  eof bingo -> Base =numword
  alnum next -> NumWord
  special next -> NumWord
  '@' push -> Email
  '/' push -> FileFirst
  '.' push -> FileNext
  '-' push -> HyphenNumWordFirst
  * bingo -> Base =numword

AsciiWord
  eof bingo -> Base =asciiword
  asclet next
  '.' push -> HostFirstDomain
  '.' push -> FileNext
  '-' push -> HostFirstAN
  '-' push -> HyphenAsciiWordFirst
  '_' push -> HostFirstAN
  '@' push -> Email
  ':' push -> ProtocolFirst
  '/' push -> FileFirst
  digit push -> Host
  digit next -> NumWord
  alpha next -> Word
  special next -> Word
  * bingo -> Base =asciiword

Word
  eof bingo -> Base =word
  alpha next
  special next
  digit next -> NumWord
  '-' push -> HyphenWordFirst
  * bingo -> Base =word

UnsignedInt
  eof bingo -> Base =uint
  digit next
  '.' push -> HostFirstDomain
  '.' push -> UDecimalFirst
  'e' push -> MantissaFirst
  'E' push -> MantissaFirst
  '-' push -> HostFirstAN
  '_' push -> HostFirstAN
  '@' push -> Email
  asclet push -> Host
  alpha next -> NumWord
  special next -> NumWord
  '/' push -> FileFirst
  * bingo -> Base =uint

SignedIntFirst
  eof pop
  digit next+clear -> SignedInt
  * pop

SignedInt
  eof bingo -> Base =int
  digit next
  '.' push -> DecimalFirst
  'e' push -> MantissaFirst
  'E' push -> MantissaFirst
  * bingo -> Base =int

Space
  eof bingo -> Base =blank
  '<' bingo -> Base =blank
  ignore next
  '-' bingo -> Base =blank
  '+' bingo -> Base =blank
  '&' bingo -> Base =blank
  '/' bingo -> Base =blank
  notalnum next -> Space
  * bingo -> Base =blank

UDecimalFirst
  eof pop
  digit clear -> UDecimal
  * pop

UDecimal
  eof bingo -> Base =float
  digit next -> UDecimal
  '.' push -> VersionFirst
  'e' push -> MantissaFirst
  'E' push -> MantissaFirst
  * bingo -> Base =float

DecimalFirst
  eof pop
  digit clear -> Decimal
  * pop

Decimal
  eof bingo -> Base =float
  digit next -> Decimal
  '.' push -> VerVersion
  'e' push -> MantissaFirst
  'E' push -> MantissaFirst
  * bingo -> Base =float

VerVersion
  eof pop
  digit rerun -> SVerVersion !verversion
  * pop

SVerVersion
  eof pop
  digit bingo+clrall -> UnsignedInt =blank
  * next

VersionFirst
  eof pop
  digit clear -> Version
  * pop

Version
  eof bingo -> Base =version
  digit next -> Version
  '.' push -> VersionFirst
  * bingo -> Base =version

MantissaFirst
  eof pop
  digit clear -> Mantissa
  '+' next -> MantissaSign
  '-' next -> MantissaSign
  * pop

MantissaSign
  eof pop
  digit clear -> Mantissa
  * pop

Mantissa
  eof bingo -> Base =sfloat
  digit next -> Mantissa
  * bingo -> Base =sfloat

XMLEntityFirst
  eof pop
  '#' next -> XMLEntityNumFirst
  asclet next -> XMLEntity
  ':' next -> XMLEntity
  '_' next -> XMLEntity
  * pop

XMLEntity
  eof pop
  alnum next -> XMLEntity
  ':' next -> XMLEntity
  '_' next -> XMLEntity
  '.' next -> XMLEntity
  '-' next -> XMLEntity
  ';' next -> XMLEntityEnd
  * pop

XMLEntityNumFirst
  eof pop
  'x' next -> XMLEntityHexNumFirst
  'X' next -> XMLEntityHexNumFirst
  digit next -> XMLEntityNum
  * pop

XMLEntityHexNumFirst
  eof pop
  xdigit next -> XMLEntityHexNum
  * pop

XMLEntityNum
  eof pop
  digit next -> XMLEntityNum
  ';' next -> XMLEntityEnd
  * pop

XMLEntityHexNum
  eof pop
  xdigit next -> XMLEntityHexNum
  ';' next -> XMLEntityEnd
  * pop

XMLEntityEnd
  * bingo+clear -> Base =entity

TagFirst
  eof pop
  '/' push -> TagCloseFirst
  '!' push -> CommentFirst
  '?' push -> XMLBegin
  asclet push -> TagName
  ':' push -> TagName
  '_' push -> TagName
  * pop

XMLBegin
  eof pop
  'x' next -> Tag
  * pop

TagCloseFirst
  eof pop
  asclet next -> TagName
  * pop

TagName
  eof pop
  '/' next -> TagBeginEnd
  '>' next -> TagEnd !tags
  space next -> Tag !tags
  alnum next
  ':' next
  '_' next
  '.' next
  '-' next
  * pop

TagBeginEnd
  eof pop
  '>' next -> TagEnd
  * pop

Tag
  eof pop
  '>' next -> TagEnd !tags
  "'" next -> TagEscapeK
  '"' next -> TagEscapeKK
  asclet next
  digit next
  '=' next
  '-' next
  '_' next
  '#' next
  '/' next
  ':' next
  '.' next
  '&' next
  '?' next
  '%' next
  '~' next
  space next !tags
  * pop

TagEscapeK
  eof pop
  '\\' push -> TagBackSleshed
  "'" next -> Tag
  * next -> TagEscapeK

TagEscapeKK
  eof pop
  '\\' push -> TagBackSleshed
  '"' next -> Tag
  * next -> TagEscapeKK

TagBackSleshed
  eof pop
  * merge

TagEnd
  * bingo+clrall -> Base =tag

CommentFirst
  eof pop
  '-' next -> CommentLast
  'D' next -> Tag
  'd' next -> Tag
  * pop

CommentLast
  eof pop
  '-' next -> Comment
  * pop

Comment
  eof pop
  '-' next -> CloseCommentFirst
  * next

CloseCommentFirst
  eof pop
  '-' next -> CloseCommentLast
  * next -> Comment

CloseCommentLast
  eof pop
  '-' next
  '>' next -> CommentEnd
  * next -> Comment

CommentEnd
  * bingo+clrall -> Base =tag

HostFirstDomain
  eof pop
  asclet next -> HostDomainSecond
  digit next -> Host
  * pop

HostDomainSecond
  eof pop
  asclet next -> HostDomain
  digit push -> Host
  '-' push -> HostFirstAN
  '_' push -> HostFirstAN
  '.' push -> HostFirstDomain
  '@' push -> Email
  * pop

HostDomain
  eof bingo+clrall -> Base =host
  asclet next -> HostDomain
  digit push -> Host
  ':' push -> PortFirst
  '-' push -> HostFirstAN
  '_' push -> HostFirstAN
  '.' push -> HostFirstDomain
  '@' push -> Email
  digit pop
  stophost bingo+clrall -> URLPathStart =host
  '/' push -> FURL
  * bingo+clrall -> Base =host

PortFirst
  eof pop
  digit next -> Port
  * pop

Port
  eof bingo+clrall -> Base =host
  digit next -> Port
  stophost bingo+clrall -> URLPathStart =host
  '/' push -> FURL
  * bingo+clrall -> Base =host

HostFirstAN
  eof pop
  digit next -> Host
  asclet next -> Host
  * pop

Host
  eof pop
  digit next -> Host
  asclet next -> Host
  '@' push -> Email
  '.' push -> HostFirstDomain
  '-' push -> HostFirstAN
  '_' push -> HostFirstAN
  * pop

Email
  stophost pop
  host bingo+clrall -> Base =email
  * pop

FileFirst
  eof pop
  asclet next -> File
  digit next -> File
  '.' next -> PathFirst
  '_' next -> File
  '~' push -> FileTwiddle
  * pop

FileTwiddle
  eof pop
  asclet next -> File
  digit next -> File
  '_' next -> File
  '/' next -> FileFirst
  * pop

PathFirst
  eof pop
  asclet next -> File
  digit next -> File
  '_' next -> File
  '.' next -> PathSecond
  '/' next -> FileFirst
  * pop

PathFirstFirst
  eof pop
  '.' next -> PathSecond
  '/' next -> FileFirst
  * pop

PathSecond
  eof bingo+clear -> Base =file
  '/' next+push -> FileFirst
  '/' bingo+clear -> Base =file
  space bingo+clear -> Base =file
  * pop

File
  eof bingo -> Base =file
  asclet next -> File
  digit next -> File
  '.' push -> FileNext
  '_' next -> File
  '-' next -> File
  '/' push -> FileFirst
  * bingo -> Base =file

FileNext
  eof pop
  asclet clear -> File
  digit clear -> File
  '_' clear -> File
  * pop

URLPathFirst
  eof pop
  urlchar next -> URLPath
  * pop

URLPathStart
  * next -> URLPath

URLPath
  eof bingo -> Base =url_path
  urlchar next -> URLPath
  * bingo -> Base =url_path

FURL
  eof pop
  urlpath bingo+clrall -> Base =url !furl
  * pop

ProtocolFirst
  eof pop
  '/' next -> ProtocolSecond
  * pop

ProtocolSecond
  eof pop
  '/' next -> ProtocolEnd
  * pop

ProtocolEnd
  * bingo+clrall -> Base =protocol

HyphenAsciiWordFirst
  eof pop
  asclet next -> HyphenAsciiWord
  alpha next -> HyphenWord
  digit next -> HyphenDigitLookahead
  * pop

HyphenAsciiWord
  eof bingo+clrall -> ParseHyphen =asciihword !hyphen
  asclet next -> HyphenAsciiWord
  alpha next -> HyphenWord
  special next -> HyphenWord
  digit next -> HyphenNumWord
  '-' push -> HyphenAsciiWordFirst
  * bingo+clrall -> ParseHyphen =asciihword !hyphen

HyphenWordFirst
  eof pop
  alpha next -> HyphenWord
  digit next -> HyphenDigitLookahead
  * pop

HyphenWord
  eof bingo+clrall -> ParseHyphen =hword !hyphen
  alpha next -> HyphenWord
  special next -> HyphenWord
  digit next -> HyphenNumWord
  '-' push -> HyphenWordFirst
  * bingo+clrall -> ParseHyphen =hword !hyphen

HyphenNumWordFirst
  eof pop
  alpha next -> HyphenNumWord
  digit next -> HyphenDigitLookahead
  * pop

HyphenNumWord
  eof bingo+clrall -> ParseHyphen =numhword !hyphen
  alnum next -> HyphenNumWord
  special next -> HyphenNumWord
  '-' push -> HyphenNumWordFirst
  * bingo+clrall -> ParseHyphen =numhword !hyphen

HyphenDigitLookahead
  eof pop
  digit next -> HyphenDigitLookahead
  alpha next -> HyphenNumWord
  special next -> HyphenNumWord
  * pop

ParseHyphen
  eof rerun -> Base
  asclet next -> HyphenAsciiWordPart
  alpha next -> HyphenWordPart
  digit push -> HyphenUnsignedInt
  '-' push -> ParseHyphenHyphen
  * rerun -> Base

ParseHyphenHyphen
  eof pop
  alnum bingo+clear -> ParseHyphen =blank
  special bingo+clear -> ParseHyphen =blank
  * pop

HyphenWordPart
  eof bingo -> Base =hword_part
  alpha next -> HyphenWordPart
  special next -> HyphenWordPart
  digit next -> HyphenNumWordPart
  * bingo -> ParseHyphen =hword_part

HyphenAsciiWordPart
  eof bingo -> Base =hword_asciipart
  asclet next -> HyphenAsciiWordPart
  alpha next -> HyphenWordPart
  special next -> HyphenWordPart
  digit next -> HyphenNumWordPart
  * bingo -> ParseHyphen =hword_asciipart

HyphenNumWordPart
  eof bingo -> Base =hword_numpart
  alnum next -> HyphenNumWordPart
  special next -> HyphenNumWordPart
  * bingo -> ParseHyphen =hword_numpart

HyphenUnsignedInt
  eof pop
  digit next
  alpha clear -> HyphenNumWordPart
  special clear -> HyphenNumWordPart
  * pop
"""

# Action flags.
NEXT, BINGO, POP, PUSH, RERUN, CLEAR, MERGE, CLRALL = 0, 1, 2, 4, 8, 16, 32, 64
_FLAGS = {
    "next": NEXT,
    "bingo": BINGO,
    "pop": POP,
    "push": PUSH,
    "rerun": RERUN,
    "clear": CLEAR,
    "merge": MERGE,
    "clrall": CLRALL,
}

Rule = tuple[str, str, int, int, str, str]
"""(test, character, flags, next state index or -1, token type or "", special or "")."""


def _compile(text: str) -> tuple[dict[str, int], list[list[Rule]]]:
    blocks = [block.strip().splitlines() for block in text.strip().split("\n\n")]
    names = {lines[0].strip(): number for number, lines in enumerate(blocks)}
    states: list[list[Rule]] = []
    for lines in blocks:
        rules: list[Rule] = []
        for line in lines[1:]:
            words = line.split()
            test, char = words[0], ""
            if test[0] in "'\"":
                test, char = "eq", test[1:-1].replace("\\\\", "\\")
            flags = 0
            for action in words[1].split("+"):
                flags |= _FLAGS[action]
            target, token, special = -1, "", ""
            for word in words[2:]:
                if word.startswith("="):
                    token = word[1:]
                elif word.startswith("!"):
                    special = word[1:]
            if "->" in words:
                target = names[words[words.index("->") + 1]]
            rules.append((test, char, flags, target, token, special))
        states.append(rules)
    return names, states


STATE, STATES = _compile(RULES)
