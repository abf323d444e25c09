// OnAirHLS: LL-HLS packaging (fMP4/CMAF, playlists).
