// Package seed is the seed document: a reference server's starting state
// written down (merchants with their keys and opening balances, customers,
// cards, plans and merchant groups), its types, its reading from JSON or
// YAML, and the checks that need no server.
//
// Contract: [Parse] and [ReadFile] refuse an unknown or repeated member and
// name the line and path at fault; a text member may be written as a YAML
// number. [Seed.Check] refuses an id not of the gateway's form (merchants
// excepted), an id or key used twice, a group naming a merchant not in the
// seed, a balance below zero or with more than two decimals, a balance
// without an account, and a country the country function refuses (the
// server's rules are the server's, so the caller passes them). Every error
// starts with "seed: " and names the entry ([Errorf]). Applying a seed is
// the server's (refserver.Server.ApplySeed); this package holds no state
// and no lock. A seed holds keys and card numbers: never log it.
package seed
