package openpay

import "reflect"

// identified is implemented by the objects the gateway always answers with
// an id. A 2xx answer that decodes into one of them without an id is not
// the object the call expects: treating it as a success would report a
// charge that does not exist.
type identified interface{ wireID() string }

func (t *Transaction) wireID() string  { return t.ID }
func (c *Card) wireID() string         { return c.ID }
func (c *Customer) wireID() string     { return c.ID }
func (b *BankAccount) wireID() string  { return b.ID }
func (p *Plan) wireID() string         { return p.ID }
func (s *Subscription) wireID() string { return s.ID }
func (t *Token) wireID() string        { return t.ID }
func (w *Webhook) wireID() string      { return w.ID }
func (m *Merchant) wireID() string     { return m.ID }
func (c *Checkout) wireID() string     { return c.ID }

// missingID reports whether out (a pointer to an object or to a slice of
// objects, decoded from an answer) holds an identified object without an
// id.
func missingID(out any) bool {
	if v, ok := out.(identified); ok {
		return v.wireID() == ""
	}
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Slice {
		return false
	}
	s := rv.Elem()
	for i := range s.Len() {
		v, ok := s.Index(i).Addr().Interface().(identified)
		if !ok {
			return false
		}
		if v.wireID() == "" {
			return true
		}
	}
	return false
}
