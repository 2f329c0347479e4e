// Go: a multi-package module (go.mod), package scope across files, imports, receivers, embedding, interfaces.
// (was test_lang_go.py: test_package_scope_spans_the_files_of_a_package,
// test_imports_aliased_dot_blank_and_external,
// test_calls_through_imports_builtins_and_conversions,
// test_unknown_receivers_guess_only_when_nothing_says_external,
// test_receivers_with_evident_types, test_results_and_elements_type_receivers,
// test_embedding_is_extends, test_interface_calls_fan_out_to_structural_implementations)
//
// test_package_scope_spans_the_files_of_a_package:
//   a package-level initializer runs in the module
//   an internal test file is part of its package
//
// test_imports_aliased_dot_blank_and_external:
//   the files that define what main.go uses of the package (`store.Cache` is in cache.go)
//   aliased (u.Func) and blank (its init) imports of util
//
// test_calls_through_imports_builtins_and_conversions:
//   `store.Count(3)` converts: no call, a reference to the type; `len` is a builtin
//   `mystery()` is defined nowhere: counted, not guessed; `.Get` on its result neither
//
// test_unknown_receivers_guess_only_when_nothing_says_external:
//   IsNil is defined once in the repository (Cache.IsNil); a reflect.Value is not ours, so
//   reflect.ValueOf(v).Elem().IsNil() stays unresolved, while nowhere().IsNil() may be it
//
// test_receivers_with_evident_types:
//   the method's receiver
//   promoted from the embedded Base
//   a field's declared type
//   x := store.NewStore() (declared result *Store), var c store.Cache
//   a package variable typed by its initializer, and a type assertion
//
// test_results_and_elements_type_receivers:
//   `s, err := store.Open()`: s is the first result, err the builtin error; elements of a
//   slice-typed result (`type Stores []*Store`) through range and indexing
//
// test_interface_calls_fan_out_to_structural_implementations:
//   name-based method sets; ReadGetter embeds io.Reader, whose methods we cannot see
//
// expect: calls.builtin = 3
// expect: calls.unresolved = 5
// expect: calls.total = 39
// exact: calls, imports, references, extends, implements
// path: app/main.go
package main

import (
    "os"
  // ^ imports: <external>::os
    "reflect"
  // ^ imports: <external>::reflect

    "example.com/app/store"
 // ^ imports: store/cache.go::
 // ^ imports: store/lookup.go::
 // ^ imports: store/store.go::
    u "example.com/app/util"
 // ^ imports: util/util.go::
    _ "example.com/app/util"
)

type App struct {
    st *store.Store
     // ^ references: example.com/app/store.Store (import)
    g  store.Getter
    // ^ references: example.com/app/store.Getter (import)
}

func (a *App) Run(g store.Getter) {
                 // ^ references: example.com/app/store.Getter (import)
    g.Get("b")
 // ^ calls: example.com/app/store.Cache.Get (dispatch)
 // ^ calls: example.com/app/store.Getter.Get (local-type)
 // ^ calls: example.com/app/store.Partial.Get (dispatch)
 // ^ calls: example.com/app/store.Store.Get (dispatch)
    u.Func()
 // ^ calls: example.com/app/util.Func (import)
    os.Exit(len("e"))
 // ^ calls: <external>::os.Exit (import)
    n := store.Count(3)
      // ^ references: example.com/app/store.Count (import)
    _ = n
    mystery().Get("i")
 // ^ unresolved: Get
 // ^ unresolved: mystery
}

func (a *App) Fields() {
    a.st.Get("a")
 // ^ calls: example.com/app/store.Store.Get (local-type)
}

func (a *App) Locals() {
    x := store.NewStore()
      // ^ calls: example.com/app/store.NewStore (import)
    x.Close()
 // ^ calls: example.com/app/store.Base.Close (local-type)
    var c store.Cache
       // ^ references: example.com/app/store.Cache (import)
    c.Get("d")
 // ^ calls: example.com/app/store.Cache.Get (local-type)
}

func (a *App) Literal() {
    y := &store.Store{}
       // ^ references: example.com/app/store.Store (import)
    y.Get("c")
 // ^ calls: example.com/app/store.Store.Get (local-type)
}

func (a *App) Global() {
    store.Default.Get("f")
 // ^ calls: example.com/app/store.Store.Get (local-type)
 // ^ references: example.com/app/store.Default (import)
}

func (a *App) Assert(r interface{}) {
    r.(*store.Store).Get("g")
                  // ^ calls: example.com/app/store.Store.Get (local-type)
     // ^ references: example.com/app/store.Store (import)
}

func (a *App) Results() {
    s, err := store.Open()
           // ^ calls: example.com/app/store.Open (import)
    s.Get("j")
 // ^ calls: example.com/app/store.Store.Get (local-type)
    _ = err.Error()
    for _, st := range store.All() {
                    // ^ calls: example.com/app/store.All (import)
        st.Get("k")
    }
    list := store.All()
    list[0].Close()
         // ^ calls: example.com/app/store.Base.Close (local-type)
}

func (a *App) Unknown(v interface{}) {
    reflect.ValueOf(v).Elem().IsNil()
 // ^ calls: <external>::reflect.ValueOf (import)
                    // ^ unresolved: Elem
                    // ^ unresolved: IsNil
    nowhere().IsNil()
 // ^ calls: example.com/app/store.Cache.IsNil (unique-name)
 // ^ unresolved: nowhere
}

func main() {
    app := &App{}
         // ^ references: example.com/app/app.App (scope)
    app.Run(nil)
 // ^ calls: example.com/app/app.App.Run (local-type)
}
// path: dot/dot.go
package dot

import . "example.com/app/util"
// ^ imports: util/util.go::

func Use() string { return Func() }
                        // ^ calls: example.com/app/util.Func (import)
// path: go.mod
module example.com/app

go 1.22
// path: store/cache.go
package store

type Cache struct{}
// ^ implements: example.com/app/store.Getter

func (c Cache) Get(key string) int { return 0 }

type Partial struct{}
// ^ implements: example.com/app/store.Getter

func (p *Partial) Get(key string) int { return 1 }

func (p *Partial) Read(b []byte) (int, error) { return 0, nil }

// Odd has a Get, but not Getter's: arities differ
type Odd struct{}

func (o Odd) Get() int { return 2 }

func (c Cache) IsNil() bool { return false }
// path: store/lookup.go
package store

type Logger struct{}

func (l *Logger) Printf(format string) {}

func (s *Store) lookup(key string) int {
    return s.items[key] + helper()
                       // ^ calls: example.com/app/store.helper (scope)
}

func helper() int { return Limit }

type Stores []*Store
            // ^ references: example.com/app/store.Store (scope)

func (ss Stores) Each() {
    for _, s := range ss {
        s.Close()
     // ^ calls: example.com/app/store.Base.Close (local-type)
    }
    ss[0].lookup("z")
       // ^ calls: example.com/app/store.Store.lookup (local-type)
}

func Open() (*Store, error) { return NewStore(), nil }
                                  // ^ calls: example.com/app/store.NewStore (scope)
           // ^ references: example.com/app/store.Store (scope)

func All() Stores { return nil }
        // ^ references: example.com/app/store.Stores (scope)
// path: store/store.go
package store

import "io"
     // ^ imports: <external>::io

// Base is embedded by Store.
type Base struct {
    closed bool
}

func (b *Base) Close() error {
    b.closed = true
    return nil
}

type Store struct {
// ^ extends: example.com/app/store.Base
// ^ implements: example.com/app/store.Getter
    Base
 // ^ references: example.com/app/store.Base (scope)
    items map[string]int
    log   *Logger
        // ^ references: example.com/app/store.Logger (scope)
}

type Getter interface {
    Get(key string) int
}

type ReadGetter interface {
// ^ extends: <external>::io.Reader
    io.Reader
    Get(key string) int
}

type ID = string

type Count int

var Default = NewStore()
           // ^ calls: example.com/app/store.NewStore (scope)

const Limit, Other = 10, 20

func NewStore() *Store {
              // ^ references: example.com/app/store.Store (scope)
    return &Store{items: map[string]int{}}
}

func (s *Store) Get(key string) int {
    s.log.Printf("get")
 // ^ calls: example.com/app/store.Logger.Printf (local-type)
    s.Close()
 // ^ calls: example.com/app/store.Base.Close (inheritance)
    return s.lookup(key)
        // ^ calls: example.com/app/store.Store.lookup (self)
}
// path: util/util.go
package util

import "fmt"
     // ^ imports: <external>::fmt

func Func() string { return fmt.Sprint(1) }
                         // ^ calls: <external>::fmt.Sprint (import)

func init() {}
// path: util/util_test.go
package util

import "testing"
     // ^ imports: <external>::testing

func TestFunc(t *testing.T) {
    if Func() == "" {
    // ^ calls: example.com/app/util.Func (scope)
        t.Fatal("empty")
     // ^ calls: <external>::testing.T.Fatal (local-type)
    }
}

func helperForTests() {}
