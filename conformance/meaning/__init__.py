"""What the answers mean, derived from declarations in the specs rather than written test by test.

The specs declare, as data beside the shapes:

- `x-effects` on every operation and method: what each parameter does (a filter, a bound, an order, a moment in
  history, a projection, a switch, a default, another spelling of one value, or nothing the documents decide);
- `x-invariants` on resource schemas: relations among the members of one answer;
- `x-identity` on resource schemas: what names one object, so that the same object seen twice must agree;
- `x-writes` on state-changing methods: what a write must change, read back through the read methods.

`declarations` reads them (and turns those that bring their own rule into catalogue entries); `effects` derives
the checks of declared effects; `invariants` and `identities` judge every answer of a run as it arrives; `writes`
compares the state before and after a write.
"""
