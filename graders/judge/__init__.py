"""What a grader calls to judge and to show: comparisons, shared strategies, pictures."""
