package refserver

// registerSimulation registers the simulation controls.
func (s *Server) registerSimulation(r *routeTable) {}
