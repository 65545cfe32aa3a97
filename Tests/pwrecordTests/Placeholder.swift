import Testing
@Test("the pwrecordTests target builds") func builds() { #expect(Bool(true)) }
