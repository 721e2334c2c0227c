"""Chapter 11's capstone (``framework.py``): a 3D-parallel trainer of a small GPT."""
