"""The twin's stand-in for Arista EOS (issue 43, docs/twin.md "The eAPI stand-in (Arista EOS switches)"): each EOS
switch's eAPI (JSON-RPC runCmds over HTTPS, configuration sessions, commit timers), its committed configuration made
real in the switch's namespace (links and FRR). Imports nothing of the product it judges."""
