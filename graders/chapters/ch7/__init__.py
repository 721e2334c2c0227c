"""Chapter 7 graders: pipeline schedules, their bubble, and a real pipeline executor."""
