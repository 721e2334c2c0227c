"""Batch grading of submissions: the teacher-facing main job."""
