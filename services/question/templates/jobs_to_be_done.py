"""Jobs-to-be-done (switch interview): the timeline, the four forces, the job itself."""

# One template per line, so each reads (and greps) as the sentence it is.
# ruff: noqa: E501

from __future__ import annotations

from services.question.templates.base import Templates

# A switch's timeline after its first thought, in order: passive and active looking, deciding, first
# and ongoing use (the ontology's timeline events).
_AFTER_FIRST_THOUGHT = (
    "After that first thought, what happened next?",
    "What happened after that, before you started actively looking at options?",
    "When did you start actively looking at options for {topic}, and what did you do?",
    "What finally made you decide, and when was that?",
    "What happened the first time you used the new solution for {topic}?",
    "After that first use, what happened next with {topic}?",
)

FAMILIES: dict[str, Templates] = {
    "timeline": Templates(
        node=(
            "What happened right before {focus}, and what came next?",
            "When did {focus} happen, and what was going on at the time?",
            "What happened next, after {focus}?",
            "How long after {focus} did you start looking for something new?",
        ),
        # The switch in its order: the first thought, then the steps after it.
        topic=(
            "When did you first start thinking about a change in how you handle {topic}, and what was going on?",
            "Could you take me back to the very beginning: when did {topic} first come up for you?",
            *_AFTER_FIRST_THOUGHT,
        ),
        # Every opening asks for the first thought: once something was told, the walk goes on from it.
        again=_AFTER_FIRST_THOUGHT,
        keywords=("timeline", "first thought", "switch story", "in order", "what happened next"),
        ordered=True,
    ),
    "push_pull": Templates(
        node=(
            "What was going wrong that made {focus} matter?",
            "What did you hope {focus} would let you do?",
            "When did you first feel that {focus} {was} worth doing something about?",
            "What was it about {focus} that pulled you towards something new?",
            "What made {focus} the moment to start looking for something else?",
        ),
        keywords=("push", "pull", "going wrong", "hoped", "start looking"),
    ),
    # The push_pull family's questions for a node known to be one force (`fit.fitting_family`): a
    # push is asked what went wrong, a pull what it promised. No keywords: never chosen by name.
    "push": Templates(
        node=(
            "What was going wrong that made {focus} matter?",
            "When did you first feel that {focus} {was} worth doing something about?",
            "What made {focus} the moment to start looking for something else?",
            "How did {focus} get in the way of what you were trying to do?",
        ),
    ),
    "pull": Templates(
        node=(
            "What did you hope {focus} would let you do?",
            "What was it about {focus} that pulled you towards something new?",
            "What did you picture {focus} would change for you?",
            "What made {focus} appealing compared with what you had?",
        ),
    ),
    # The push_pull family's questions for a solution, old or new ("the capsule machine", "instant"):
    # the graph does not say which, so neither "what made it the moment to look for something else"
    # nor "what was going wrong that made it matter". No keywords: never chosen by name.
    "push_pull_solution": Templates(
        node=(
            "What did you hope {focus} would let you do?",
            "What drew you to {focus}, or pushed you away from {it}?",
            "What was it about {focus} that made you think about a change?",
            "What changed for you once {focus} came into the picture?",
        ),
    ),
    # ... and for a moment of the switch timeline, done or undergone ("bought a hand grinder", "had
    # palpitations"): the forces around it, not the moment as a force.
    "push_pull_event": Templates(
        node=(
            "What was going wrong for you around the time of {focus}?",
            "What were you hoping for around the time of {focus}?",
            "What was pulling you towards something new around the time of {focus}?",
            "Around the time of {focus}, what made the old way stop being good enough?",
        ),
    ),
    "anxiety_habit": Templates(
        node=(
            "What almost stopped you from switching, when it came to {focus}?",
            "What worried you about {focus} when you were deciding?",
            "What did you like about the old way, compared with {focus}?",
            "What was hard to give up when it came to {focus}?",
            "What concerns did you have about {focus} before you committed?",
        ),
        keywords=("anxiety", "habit", "worried", "almost stopped", "give up", "old way"),
    ),
    # The anxiety_habit family's questions for what pulled them (`fit.fitting_family`): nothing
    # about a promise was given up ("What was hard to give up when it came to having fresh coffee in
    # two minutes?"), so what held them back from it is asked. No keywords: never chosen by name.
    "anxiety_of_pull": Templates(
        node=(
            "Even though {focus} appealed to you, what worried you about switching?",
            "What almost stopped you from switching, when it came to {focus}?",
            "What did you like about the old way, compared with {focus}?",
            "What worried you about {focus} when you were deciding?",
        ),
    ),
    # ... and for a solution, old or new ("energy drinks", "the steel thermos"): the graph does not
    # say which, so neither "what did you like about the old way, compared with the energy drinks?"
    # (the old way itself) nor "what was hard to give up when it came to the thermos?" (the new one);
    # what held the switch back is asked in words that fit either.
    "anxiety_habit_solution": Templates(
        node=(
            "What almost stopped you from switching, when it came to {focus}?",
            "What habit made the change harder, when it came to {focus}?",
            "Thinking of {focus}, what was hard about leaving the old way behind?",
            "Thinking of {focus}, what worried you about changing?",
        ),
    ),
    # ... and for a moment of the switch timeline ("missed my train twice", "read reviews"): the
    # moment is no worry of its own; what held them back around it is asked.
    "anxiety_habit_event": Templates(
        node=(
            "Around the time of {focus}, what almost stopped you from switching?",
            "Around the time of {focus}, what worried you about changing?",
            "Around the time of {focus}, what kept you with the old way?",
            "What was hard to give up about the old way around the time of {focus}?",
        ),
    ),
    "job": Templates(
        node=(
            "When {focus} came up, what were you really trying to get done?",
            "What would getting {focus} sorted make possible for you?",
            "How would you know that {focus} had gone well?",
            "What bigger goal {is} {focus} part of for you?",
            "When it came to {focus}, what progress were you trying to make?",
        ),
        keywords=("job", "get done", "progress", "trying to"),
    ),
    # The job family's questions for a push in focus (`fit.fitting_family`): a problem is no job
    # to get sorted or to go well, so the question asks what the person was trying to get done
    # while it stood in the way. No keywords: never chosen by name.
    "job_behind_push": Templates(
        node=(
            "Thinking back to {focus}, what were you really trying to get done at the time?",
            "What would you have been able to do if {focus} hadn't stood in your way?",
            "When it came to {focus}, what progress were you trying to make?",
            "Around the time of {focus}, what were you trying to make progress on?",
        ),
    ),
    # The job family's questions for a pull in focus ("feels like a treat to make it slowly"): what
    # drew the person is no job to get sorted or a situation, so the question asks what it promised.
    "job_behind_pull": Templates(
        node=(
            "What were you really trying to get done when {focus} appealed to you?",
            "What would {focus} have made possible for you?",
            "What bigger goal {is} {focus} part of for you?",
            "Why did {focus} matter so much to you at the time?",
        ),
    ),
    # The job family's questions for a worry in focus ("coffee would ruin my sleep"): a worry is no
    # job to get sorted, to go well or to be part of a goal; what the person wanted in spite of it
    # is asked. No keywords: never chosen by name.
    "job_despite_worry": Templates(
        node=(
            "Despite {focus}, what were you hoping the change would do for you?",
            "What were you trying to get done that made {focus} worth facing?",
            "When {focus} came up, what were you really trying to get done?",
            "When it came to {focus}, what progress were you trying to make?",
        ),
    ),
    # ... and for a habit ("the vending machine break with colleagues"): the comfort of the old way
    # is no job either; what the person wanted more than it is asked.
    "job_over_habit": Templates(
        node=(
            "What did you want more than {focus} at the time?",
            "What were you trying to get done that made you think of giving up {focus}?",
            "When {focus} came up, what were you really trying to get done?",
            "Around the time of {focus}, what were you trying to make progress on?",
        ),
    ),
    # The job family's questions for a reason a solution was hired ("under 100 euros", "fits on the
    # counter"): a criterion is no job to get sorted nor a goal ("What bigger goal are under 100
    # euros part of?"); what made it count is asked.
    "job_of_criterion": Templates(
        node=(
            "Why did {focus} matter to you when you were choosing?",
            "What were you really trying to get done that made {focus} matter?",
            "What would {focus} make possible for you?",
            "What did {focus} mean for what you were trying to get done?",
        ),
    ),
    # The job family's questions for a solution in focus ("capsule machine", "barista course"): a
    # solution is hired for a job, not "sorted" or "gone well".
    "job_of_solution": Templates(
        node=(
            "What job did {focus} do for you?",
            "What were you really trying to get done when you chose {focus}?",
            "What would {focus} make possible for you?",
            "What bigger goal {is} {focus} part of for you?",
            "How would you know that {focus} {was} doing the job you needed done?",
        ),
    ),
    # The job family's questions for a moment of the switch timeline in focus ("had palpitations",
    # "bought a steel thermos"): a moment is no goal in itself ("what bigger goal is having
    # palpitations part of?"), so the question asks what the person was after at the time.
    "job_at_event": Templates(
        node=(
            "Thinking back to {focus}, what were you really trying to get done at the time?",
            "Around the time of {focus}, what were you trying to make progress on?",
            "At the time of {focus}, what bigger goal were you working towards?",
            "Back at the time of {focus}, what were you hoping would change for you?",
        ),
    ),
    "specifics": Templates(
        node=(
            "When exactly did {focus} happen, and where were you?",
            "Who was there when {focus} happened?",
            "What exactly did you do about {focus}?",
            "Roughly what did {focus} cost you, in money or time?",
            "Could you take me to the specific day of {focus}: what happened?",
        ),
        keywords=("specific", "exactly when", "concrete", "who was there", "real event"),
    ),
    "alternatives": Templates(
        node=(
            "What else did you try or consider instead of {focus}?",
            "Why did you choose {focus} over the other options?",
            "What did you go back to, or drop, when it came to {focus}, and why?",
            "Before {focus}, what did you use instead, and what made you stop?",
            "What would you have done if {focus} hadn't been an option?",
        ),
        keywords=("tried", "considered", "alternatives", "instead", "hire", "fire", "doing nothing"),
    ),
}

OVERRIDES: dict[str, Templates] = {
    "validate": Templates(
        node=(
            "Thinking of {focus}, how would you finish the sentence 'When I …, I want to … so that …'?",
            "About {focus}, from what you've told me: {chain}. How well does that capture what you were trying to get done?",
            "Thinking about {focus}, what have I missed about what you were really trying to achieve?",
            "How would you sum up, in one sentence, the job {focus} {was} doing for you?",
        ),
    ),
    "closing": Templates(
        summary=(
            "Before we wrap up, what about your switch hasn't come up yet that you think matters?",
            "We've talked about {summary}. Before we finish, what else about your decision should I know?",
            "As we come to the end, what is the one thing about how you chose that you'd most want me to remember?",
        ),
    ),
}
