"""Infrastructure the kit's commands share: files written whole and readable by the teacher's
group (:mod:`graders.infra.files`), and text from a submission made safe for the teacher's files
and terminal (:mod:`graders.infra.safe_text`)."""
