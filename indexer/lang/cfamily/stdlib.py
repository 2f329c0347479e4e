"""The C standard library's and POSIX's common functions and function-like macros: a call
to one of these that the repository does not define is a call into the language's runtime
(counted as builtin, like Python's `len`), not an unresolved site."""

from __future__ import annotations

STDLIB_FUNCTIONS = frozenset(
    """
    abort abs acos asin atan atan2 atexit atof atoi atol atoll bsearch calloc ceil clearerr
    clock cos cosh ctime difftime div exit _exit exp fabs fclose feof ferror fflush fgetc
    fgetpos fgets floor fmod fopen fprintf fputc fputs fread free freopen frexp fscanf fseek
    fsetpos ftell fwrite getc getchar getenv gets gmtime isalnum isalpha iscntrl isdigit
    isgraph islower isprint ispunct isspace isupper isxdigit labs ldexp ldiv localeconv
    localtime log log10 longjmp malloc mblen mbstowcs mbtowc memchr memcmp memcpy memmove
    memset mktime modf perror pow printf putc putchar puts qsort raise rand realloc remove
    rename rewind scanf setbuf setjmp setlocale setvbuf signal sin sinh snprintf sprintf
    sqrt srand sscanf strcat strchr strcmp strcoll strcpy strcspn strerror strftime strlen
    strncat strncmp strncpy strpbrk strrchr strspn strstr strtod strtof strtok strtol
    strtold strtoll strtoul strtoull strxfrm system tan tanh time tmpfile tmpnam tolower
    toupper ungetc va_arg va_copy va_end va_start vfprintf vprintf vsnprintf vsprintf
    wcslen wcscmp wcscpy wcsncpy wcstombs wctomb assert static_assert offsetof sizeof
    alignof _Static_assert __builtin_expect __builtin_unreachable __builtin_constant_p
    __builtin_memcpy __builtin_memset __builtin_clz __builtin_ctz __builtin_popcount
    __builtin_offsetof __builtin_types_compatible_p __builtin_choose_expr __typeof__ typeof
    __attribute__ __asm__ asm
    access chdir close dup dup2 execl execlp execv execve execvp fcntl fdatasync fork
    fstat fsync ftruncate getcwd getpid getppid getuid geteuid getgid isatty kill link
    lseek lstat mkdir mmap munmap open pipe pread pwrite read readlink rmdir sleep stat
    symlink sysconf unlink usleep utime waitpid write nanosleep gettimeofday clock_gettime
    pthread_create pthread_join pthread_mutex_init pthread_mutex_destroy pthread_mutex_lock
    pthread_mutex_unlock pthread_mutex_trylock pthread_cond_init pthread_cond_wait
    pthread_cond_signal pthread_cond_broadcast pthread_cond_destroy pthread_self
    pthread_equal pthread_key_create pthread_getspecific pthread_setspecific
    pthread_mutexattr_init pthread_mutexattr_settype pthread_mutexattr_destroy
    dlopen dlsym dlclose dlerror strdup strndup strcasecmp strncasecmp localtime_r gmtime_r
    fileno fdopen popen pclose getpagesize posix_fallocate fchown fchmod chmod chown
    utimes getrusage select poll socket connect bind listen accept send recv errno
    INT8_C INT16_C INT32_C INT64_C UINT8_C UINT16_C UINT32_C UINT64_C INTMAX_C UINTMAX_C
    """.split()
)
