// Package textpack keeps the text of a stored record (its id, its
// holder's or customer's names, an e-mail address, ...) in one allocation:
// the record keeps substrings of one string, or offsets into it, instead
// of one heap object per string, so that a store of many records holds,
// and the garbage collector visits, one object for each record's text.
//
// Contract:
//   - [NewCustomer] copies the bytes it is given into one new string (one
//     allocation) and returns a substring of it and offsets into it;
//     nothing is modified afterwards (strings are immutable), so the
//     results are safe to share and to read without a lock.
//   - A [Customer] returns exactly the strings it was built from, whatever
//     their length or content.
package textpack

// Customer is a customer's name, last name, e-mail, phone number and
// external id, one after the other in one string.
type Customer struct {
	data string
	ends [4]uint32
}

// NewCustomer returns head (the bytes b holds already: the customer's id,
// drawn into the same storage) and a Customer of the given values, all in
// one allocation.
func NewCustomer(b []byte, name, lastName, email, phone, externalID string) (string, Customer) {
	var t Customer
	n := len(b)
	for i, v := range [...]string{name, lastName, email, phone} {
		b = append(b, v...)
		t.ends[i] = uint32(len(b) - n)
	}
	s := string(append(b, externalID...))
	t.data = s[n:]
	if n == 0 {
		return "", t
	}
	return s[:n], t
}

// Name returns the name.
func (t *Customer) Name() string { return t.data[:t.ends[0]] }

// LastName returns the last name.
func (t *Customer) LastName() string { return t.data[t.ends[0]:t.ends[1]] }

// Email returns the e-mail address.
func (t *Customer) Email() string { return t.data[t.ends[1]:t.ends[2]] }

// Phone returns the phone number.
func (t *Customer) Phone() string { return t.data[t.ends[2]:t.ends[3]] }

// ExternalID returns the external id.
func (t *Customer) ExternalID() string { return t.data[t.ends[3]:] }
