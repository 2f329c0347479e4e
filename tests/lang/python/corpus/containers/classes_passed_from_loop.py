# about: classes in a class attribute's list, passed one by one to a method that
# about: constructs what it was passed (Flask's TaggedJSONSerializer.default_tags, register)
# path: tags.py
class Tag:
    def __init__(self, serializer):
        self.serializer = serializer


class TagDict(Tag):
    pass


class TagList(Tag):
    pass


class Serializer:
    default_tags = [TagDict, TagList]

    def __init__(self):
        self.tags = []
        for cls in self.default_tags:
            self.register(cls)
            #    ^ calls: tags.Serializer.register

    def register(self, tag_class):
        tag = tag_class(self)
        #     ^ calls: tags.TagDict
        #     ^ calls: tags.TagList
        #     ^ calls: tags.Tag.__init__
        self.tags.append(tag)


Serializer()
#^ calls: tags.Serializer
#^ calls: tags.Serializer.__init__
