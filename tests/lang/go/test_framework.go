// Go: functions the standard library calls back (issue 26: t.Run subtests; the entry-point
// table indexer/lang/go/entrypoints.py, rule entry-point). A subtest written as a function
// literal is part of its test (calls in it are the test's); one passed by name is called by
// the test. sort.Slice's less, sync.Once.Do's function and an http handler are called by
// the caller that hands them over. A table test's function field (c.fn) stays unresolved:
// the composite literal's values are not followed.
// path: go.mod
// module example.com/m
// path: calc/calc.go
package calc

import (
	"net/http"
	"sort"
	"sync"
)

func Add(a, b int) int { return a + b }

func Sub(a, b int) int { return a - b }

func less(i, j int) bool { return i < j }

func setup() {}

func handler(w http.ResponseWriter, r *http.Request) {}

var once sync.Once

func Serve(xs []int) {
	http.HandleFunc("/", handler)
	// ^ calls: <external>::net/http.HandleFunc
	// ^ calls: calc.handler (entry-point)
	sort.Slice(xs, less)
	// ^ calls: <external>::sort.Slice
	// ^ calls: calc.less (entry-point)
	once.Do(setup)
	//   ^ calls: <external>::sync.Once.Do
	//   ^ calls: calc.setup (entry-point)
}
// path: calc/calc_test.go
package calc

import "testing"

func TestAdd(t *testing.T) {
	t.Run("small", func(t *testing.T) {
		Add(1, 2)
		// ^ calls: calc.Add (scope)
	})
	cases := []struct {
		name string
		fn   func(int, int) int
	}{{"sub", Sub}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(1, 2) })
		//                                   ^ unresolved: fn
	}
}

func checkSub(t *testing.T) {
	Sub(1, 1)
	// ^ calls: calc.Sub (scope)
}

func TestSub(t *testing.T) {
	t.Run("sub", checkSub)
	//^ calls: <external>::testing.T.Run (local-type)
	//^ calls: calc.checkSub (entry-point)
}
