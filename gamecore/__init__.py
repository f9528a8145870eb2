"""skrafl's game core: alphabets, tile sets, boards, rule sets, scoring, move generation and
game-log formats. Everything here is pure library code: no printing, no exiting; bad input raises
:class:`gamecore.errors.SkraflError` (or a subclass) carrying the file and line it came from."""
