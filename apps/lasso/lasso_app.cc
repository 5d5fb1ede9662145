#include "apps/lasso/lasso_update.h"
