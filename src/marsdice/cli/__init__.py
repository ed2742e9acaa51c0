"""The ``marsdice`` command line: play, replay and (with the solvers) tournaments and analysis."""
