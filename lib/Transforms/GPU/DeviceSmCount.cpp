//===- DeviceSmCount.cpp - the SM count of the device at launch -----------===//

#include "DeviceSmCount.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

Value mlir::indexpool::createDeviceSmCount(OpBuilder &b, Location loc) {
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto type = b.getFunctionType({}, {b.getIndexType()});
  if (!module.lookupSymbol<func::FuncOp>(kDeviceSmCountFunction)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto decl = func::FuncOp::create(b, loc, kDeviceSmCountFunction, type);
    decl.setPrivate();
  }
  return func::CallOp::create(b, loc, kDeviceSmCountFunction,
                              TypeRange{b.getIndexType()}, ValueRange{})
      .getResult(0);
}

bool mlir::indexpool::isDeviceSmCount(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee() == kDeviceSmCountFunction;
}

Value mlir::indexpool::createDeviceWave(OpBuilder &b, Location loc,
                                        int64_t blocksPerSM) {
  Value sms = createDeviceSmCount(b, loc);
  if (blocksPerSM == 1)
    return sms;
  return arith::MulIOp::create(
      b, loc, sms, arith::ConstantIndexOp::create(b, loc, blocksPerSM));
}
