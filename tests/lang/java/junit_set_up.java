// JUnit (issue 26 point 1): JUnit runs a test class's @BeforeEach/@AfterEach (@Before/@After,
// @BeforeAll/@AfterAll) methods around each @Test method, so the test calls them (rule
// fixture, at the test's first line); set-ups of a supertype declared in the same file count.
// A field assigned in @BeforeEach is typed by its declaration, so the test's calls on it
// resolve. A method that is not a test calls no set-up.
// path: pom.xml
// <project></project>
// path: src/main/java/com/ex/Calc.java
package com.ex;

public class Calc {
    public int add(int a, int b) { return a + b; }
}
// path: src/test/java/com/ex/CalcTest.java
package com.ex;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BaseTest {
    @org.junit.jupiter.api.AfterEach
    void cleanUp() {}
}

class CalcTest extends BaseTest {
    private Calc calc;

    @BeforeEach
    void setUp() {
        calc = new Calc();
    }

  // v calls: com.ex.CalcTest.setUp (fixture)
  // v calls: com.ex.BaseTest.cleanUp (fixture)
    @Test
    void adds() {
        calc.add(1, 2);
        //   ^ calls: com.ex.Calc.add (local-type)
    }

    //   v !calls: com.ex.CalcTest.setUp
    void helper() {
        calc.add(2, 3);
        //   ^ calls: com.ex.Calc.add (local-type)
    }
}
