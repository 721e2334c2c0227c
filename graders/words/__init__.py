"""The kit's words: the language machinery (Text, say, the vocabulary) and the tables it reads."""
