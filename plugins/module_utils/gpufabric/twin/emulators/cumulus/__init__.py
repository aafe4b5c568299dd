"""The Cumulus Linux switch of the virtual twin: what stands in for the switch's own services."""
