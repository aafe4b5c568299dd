"""The twin's stand-in for Arista EOS: not built yet (issue 43's next part, docs/eos.md). Its plane refuses to run an
EOS switch, naming what is missing, and otherwise keeps out of the way of the other NOSes' twins."""
