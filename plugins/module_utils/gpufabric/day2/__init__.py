"""Day-2 operations on a planned cluster, at the level of the plan: drain state and its safety, hot spares.
What growth changes between two builds is `growth.py` (an output: it reads plans and builds).
"""
