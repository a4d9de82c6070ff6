//! Registry service layer and HTTP router.
