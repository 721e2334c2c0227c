"""What a batch writes for the teacher: gradebooks, feedback, the class report, similarity, misconceptions."""
