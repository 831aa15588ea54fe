"""The use cases, protocol-free: each runs inside one unit of work (`session/unit_of_work.py`)."""
