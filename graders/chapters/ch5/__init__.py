"""Chapter 5 graders: ZeRO-1/2/3, ZeRO-Offload and the cost of each stage."""
