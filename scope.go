package openpay

import (
	"context"
	"errors"
	neturl "net/url"
	"slices"
)

// scope is where a service's paths start: the merchant
// (/v1/{merchant_id}) or one of its customers
// (/v1/{merchant_id}/customers/{customer_id}). Merchant and customer
// services share one implementation; only the prefix differs.
type scope struct {
	c      *Client
	prefix []string
}

// ErrZeroClient is returned by every call made through a [Client] that
// [New] did not create: a zero Client{} (whose services are nil) and the
// services and scopes taken from it, and the scopes a nil *Client's
// Customer and Group return. Nothing is sent. (A service field of a nil
// *Client cannot be read: Go panics on the field read, before the SDK runs.)
var ErrZeroClient = errors.New("openpay: the client was not created with openpay.New")

// url returns the full URL (without query) of a path below the scope. Every
// call starts here, so this is where a client that New did not make is
// refused.
func (s scope) url(parts ...string) (string, error) {
	if s.c == nil || s.c.tr == nil {
		return "", ErrZeroClient
	}
	return buildURL(s.c.baseURL, s.prefix, parts)
}

// customerID returns the customer of a customer scope, or "" for any
// other scope.
func (s scope) customerID() string {
	if len(s.prefix) == 4 && s.prefix[2] == "customers" {
		return s.prefix[3]
	}
	return ""
}

// group reports whether s is a merchant group's scope (/v1/groups/...).
func (s scope) group() bool { return len(s.prefix) > 1 && s.prefix[1] == "groups" }

// below returns the scope of the path parts below s.
func (s scope) below(parts ...string) scope {
	return scope{c: s.c, prefix: slices.Concat(s.prefix, parts)}
}

// merchantScope returns the scope of the merchant's own paths. A nil c
// gives a scope without client, whose calls fail with ErrZeroClient.
func (c *Client) merchantScope() scope {
	if c == nil {
		return scope{}
	}
	return scope{c: c, prefix: []string{"v1", c.merchantID}}
}

// service lists the services: each is a struct holding only its scope.
type service interface {
	*ChargesService | *PayoutsService | *TransfersService | *CardsService | *BankAccountsService |
		*SubscriptionsService | *CheckoutsService | *CustomersService | *PlansService | *FeesService |
		*TokensService | *WebhooksService | *MerchantService | *StoresService | *BINsService |
		*ReportsService | *GroupChargesService | *GroupCardsService
}

// scopeOf returns the scope of a service. Every service method reads its
// scope here, so that a method called on a nil service (a field of a zero
// Client) fails with ErrZeroClient rather than panics.
func scopeOf[S service](svc S) scope {
	if p := (*struct{ s scope })(svc); p != nil {
		return p.s
	}
	return scope{}
}

// CustomerScope holds the services of one customer: the same operations as
// at the merchant level, on the customer's own cards, charges, payouts,
// transfers, bank accounts, subscriptions and checkouts. Get one with
// [Client.Customer]; it is cheap, make one per use.
type CustomerScope struct {
	// ID is the customer's id.
	ID string

	Charges       *ChargesService
	Payouts       *PayoutsService
	Transfers     *TransfersService
	Cards         *CardsService
	BankAccounts  *BankAccountsService
	Subscriptions *SubscriptionsService
	// Checkouts are the customer's payment links.
	Checkouts *CheckoutsService
}

// Customer returns the services scoped to one customer. An invalid id is
// reported by the first call.
func (c *Client) Customer(customerID string) *CustomerScope {
	s := c.merchantScope().below("customers", customerID)
	return &CustomerScope{
		ID:            customerID,
		Charges:       &ChargesService{s: s},
		Payouts:       &PayoutsService{s: s},
		Transfers:     &TransfersService{s: s},
		Cards:         &CardsService{s: s},
		BankAccounts:  &BankAccountsService{s: s},
		Subscriptions: &SubscriptionsService{s: s},
		Checkouts:     &CheckoutsService{s: s},
	}
}

// initServices wires the merchant-level services.
func (c *Client) initServices() {
	s := c.merchantScope()
	c.Charges = &ChargesService{s: s}
	c.Payouts = &PayoutsService{s: s}
	c.Fees = &FeesService{s: s}
	c.Cards = &CardsService{s: s}
	c.Customers = &CustomersService{s: s}
	c.Plans = &PlansService{s: s}
	c.BankAccounts = &BankAccountsService{s: s}
	c.BINs = &BINsService{s: s}
	c.Reports = &ReportsService{s: s}
	c.Tokens = &TokensService{s: s}
	c.Webhooks = &WebhooksService{s: s}
	c.Merchant = &MerchantService{s: s}
	c.Stores = &StoresService{s: scope{c: c}} // the lookup's path has no merchant
	c.Checkouts = &CheckoutsService{s: s}
}

// call sends one request to a path below the scope and decodes the answer
// into a new T (nil T for calls answered with no body).
func call[T any](ctx context.Context, s scope, r apiRequest, parts ...string) (*T, error) {
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	r.url = u
	var out T
	if err := s.c.send(ctx, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// callNoContent sends a request answered with an empty body (deletes,
// verification).
func callNoContent(ctx context.Context, s scope, method string, opts []CallOption, parts ...string) error {
	u, err := s.url(parts...)
	if err != nil {
		return err
	}
	return s.c.send(ctx, apiRequest{method: method, url: u, opts: opts}, nil)
}

// pageOf fetches one page of the list at parts.
//
// A page holds pointers, as List yields them: the same *T from either
// call, so that code moves between the two without changing types.
func pageOf[T any](ctx context.Context, s scope, q neturl.Values, err error, opts []CallOption, parts ...string) ([]*T, error) {
	if err != nil {
		return nil, err
	}
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	page, err := listPage[T](ctx, s.c, u, q, opts)
	if err != nil {
		return nil, err
	}
	out := make([]*T, len(page))
	for i := range page {
		out[i] = &page[i]
	}
	return out, nil
}

// iterOf iterates over the whole list at parts, a list newest created
// first.
func iterOf[T any](ctx context.Context, s scope, q neturl.Values, err error, opts []CallOption, parts ...string) func(yield func(*T, error) bool) {
	return iterInOrder[T](ctx, s, q, err, newestCreatedFirst, opts, parts...)
}

// iterInOrder iterates over the whole list at parts, a list in the given
// order.
func iterInOrder[T any](ctx context.Context, s scope, q neturl.Values, err error, order listOrder, opts []CallOption, parts ...string) func(yield func(*T, error) bool) {
	u, perr := s.url(parts...)
	if err == nil {
		err = perr
	}
	return listAll[T](ctx, s.c, u, q, err, order, opts)
}

// GroupScope holds the services of a merchant group: the group's own
// customers and their cards, and charges and subscriptions made through the
// group for its merchants. Build the Client with the group's credentials and
// get a scope with [Client.Group]. The gateway's group API has fewer
// operations than a merchant's, and the group services offer only those.
type GroupScope struct {
	// ID is the group's id.
	ID string
	// Customers are the group's customers (/v1/groups/{group_id}/customers).
	Customers *CustomersService

	s scope
}

// Group returns the services of a merchant group.
func (c *Client) Group(groupID string) *GroupScope {
	s := scope{c: c, prefix: []string{"v1", "groups", groupID}}
	return &GroupScope{ID: groupID, Customers: &CustomersService{s: s}, s: s}
}

// scope returns g's scope; a nil g has one without client, whose calls
// fail with ErrZeroClient.
func (g *GroupScope) scope() scope {
	if g == nil {
		return scope{}
	}
	return g.s
}

// GroupCustomerScope holds the services of one customer of a group.
type GroupCustomerScope struct {
	Cards *GroupCardsService
}

// Customer returns the services of one of the group's customers.
func (g *GroupScope) Customer(customerID string) *GroupCustomerScope {
	return &GroupCustomerScope{Cards: &GroupCardsService{s: g.scope().below("customers", customerID)}}
}

// GroupMerchantScope holds the services of one merchant of a group.
type GroupMerchantScope struct {
	Charges *GroupChargesService

	s scope
}

// Merchant returns the services of one of the group's merchants.
func (g *GroupScope) Merchant(merchantID string) *GroupMerchantScope {
	s := g.scope().below("merchants", merchantID)
	return &GroupMerchantScope{Charges: &GroupChargesService{s: s}, s: s}
}

// scope returns m's scope; a nil m has one without client.
func (m *GroupMerchantScope) scope() scope {
	if m == nil {
		return scope{}
	}
	return m.s
}

// GroupMerchantCustomerScope holds the services of one group customer at a
// merchant of the group.
type GroupMerchantCustomerScope struct {
	Charges       *GroupChargesService
	Subscriptions *SubscriptionsService
}

// Customer returns the services of one group customer at the group's
// merchant.
func (m *GroupMerchantScope) Customer(customerID string) *GroupMerchantCustomerScope {
	s := m.scope().below("customers", customerID)
	return &GroupMerchantCustomerScope{Charges: &GroupChargesService{s: s}, Subscriptions: &SubscriptionsService{s: s}}
}
