import Testing
@Test("the PluginsTests target builds") func builds() { #expect(Bool(true)) }
