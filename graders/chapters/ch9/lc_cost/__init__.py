"""Chapter 9's cost model of long-sequence attention (``lc_cost.py``)."""
