# about: a key function handed to a builtin is called by the builtin on the caller's behalf
# path: app.py
def by_length(s):
    return len(s)
    #      ^ calls: builtins.len


def order(words):
    return sorted(words, key=by_length)
    #      ^ calls: builtins.sorted
    #      ^ calls: app.by_length


order(["bb", "a"])
#^ calls: app.order
