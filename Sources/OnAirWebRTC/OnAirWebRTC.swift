// OnAirWebRTC: a PeerSession turning datagrams into events and actions.
