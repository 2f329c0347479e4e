# about: a subclass of a library class overrides a method the library's own methods call:
# about: `wrapper.fill(text)` runs textwrap's fill -> wrap -> the subclass's _wrap_chunks
# about: (click's TextWrapper); the library's _wrap_chunks, reached by super(), calls the
# about: subclass's _handle_long_word
# path: app.py
import textwrap


class Wrapper(textwrap.TextWrapper):
    def _wrap_chunks(self, chunks):
        self._handle_long_word(list(reversed(chunks)), [], 0, self.width)
        #    ^ calls: app.Wrapper._handle_long_word
        return super()._wrap_chunks(chunks)
        #              ^ calls: app.Wrapper._handle_long_word

    def _handle_long_word(self, reversed_chunks, cur_line, cur_len, width):
        return super()._handle_long_word(reversed_chunks, cur_line, cur_len, width)


def wrap_text(text):
    wrapper = Wrapper(width=10)
    #         ^ calls: app.Wrapper
    return wrapper.fill(text)
    #              ^ calls: app.Wrapper._wrap_chunks


wrap_text("a few words to wrap, and averyveryverylongword")
#^ calls: app.wrap_text
