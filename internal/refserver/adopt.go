package refserver

import (
	"errors"
	"fmt"
)

// Adopting a configuration. A server restored from a data directory
// (OpenData) has the state of an earlier run but none of its configuration
// steps, so its Reset is refused (ErrResetRestored). When the restart names
// the configuration again (the binary's flags and seed file, openpaytest's
// WithMerchant), AdoptSeed and AdoptMerchant check it against the stored
// state and record it as this run's configuration without applying it:
// Reset then replays it, as after a start on an empty directory. A
// configuration that names a merchant the directory does not hold, or
// keys or a country other than its merchant's, is refused with an error
// that says which: the stored state is never silently kept against what
// the restart says.

// ErrNotAdoptable is AdoptSeed's answer when the configuration leaves a
// merchant's id or a key to be generated on a server whose ids are random:
// they cannot be known again, so Reset stays refused.
var ErrNotAdoptable = errors.New("the configuration leaves a merchant's id or keys to be generated at random; give them (or a seed for ids) to reset a restored state")

// AdoptSeed makes sd this run's configuration on a restored server (see
// above). It does nothing on a server that restored nothing.
func (s *Server) AdoptSeed(sd Seed) error {
	if !s.restored.Load() {
		return nil
	}
	if s.ids.State() == nil {
		for _, m := range sd.Merchants {
			if m.ID == "" || m.PrivateKey == "" || m.PublicKey == "" {
				return ErrNotAdoptable
			}
		}
	}
	return s.adopt(func(fresh *Server) error {
		_, err := fresh.applySeed(sd)
		return err
	})
}

// AdoptMerchant is AdoptSeed for one merchant, described as for
// AddMerchant; keys left empty are taken from the stored merchant's
// (checked by their hashes) when the server is seeded, and make it
// ErrNotAdoptable otherwise. It returns the configuration as known.
func (s *Server) AdoptMerchant(cfg MerchantConfig) (MerchantConfig, error) {
	if !s.restored.Load() {
		return cfg, nil
	}
	if s.ids.State() == nil && (cfg.ID == "" || cfg.PrivateKey == "" || cfg.PublicKey == "") {
		return cfg, ErrNotAdoptable
	}
	var made MerchantConfig
	err := s.adopt(func(fresh *Server) error {
		var err error
		made, err = fresh.addMerchant(cfg)
		return err
	})
	if err != nil {
		return cfg, err
	}
	return made, nil
}

// adopt replays step on a fresh server, compares the merchants and groups
// it makes with the stored ones, and records step as the configuration.
func (s *Server) adopt(step func(fresh *Server) error) error {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	st := configStep{at: s.clockStart, apply: step}
	s.config = append(s.config, st)
	fresh, err := s.rebuild()
	if err != nil {
		s.config = s.config[:len(s.config)-1]
		return err
	}
	defer fresh.Close()
	if err := s.sameAsStored(fresh); err != nil {
		s.config = s.config[:len(s.config)-1]
		return err
	}
	s.restored.Store(false)
	return nil
}

// sameAsStored checks that every merchant and group fresh holds is stored
// with the same keys and country.
func (s *Server) sameAsStored(fresh *Server) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, id := range fresh.merchantList {
		fm, sm := fresh.merchants[id], s.merchants[id]
		switch {
		case sm == nil:
			return fmt.Errorf("refserver: the data directory holds no merchant %q (it holds %v): start on an empty directory, or name one of its merchants", id, s.merchantList)
		case fm.privHash != sm.privHash:
			return fmt.Errorf("refserver: the private key given for merchant %q is not the one in the data directory", id)
		case fm.pubHash != sm.pubHash:
			return fmt.Errorf("refserver: the public key given for merchant %q is not the one in the data directory", id)
		case fm.country != sm.country:
			return fmt.Errorf("refserver: merchant %q is of country %s in the data directory, not %s", id, sm.country.Code, fm.country.Code)
		}
	}
	for id, fg := range fresh.groups {
		sg := s.groups[id]
		switch {
		case sg == nil:
			return fmt.Errorf("refserver: the data directory holds no group %q", id)
		case fg.keyHash != sg.keyHash:
			return fmt.Errorf("refserver: the key given for group %q is not the one in the data directory", id)
		}
	}
	return nil
}
